import sbt._

/**
 * A JDK 21 or newer for what needs virtual threads: RAPIER_JDK21, else the newest under /usr/lib/jvm, else the JDK sbt
 * runs on; none when none of them is 21 or newer (the tests that need one then skip themselves, saying why).
 */
object Jdk21 {
  lazy val home: Option[File] = {
    val candidates = sys.env.get("RAPIER_JDK21").map(file).toSeq ++
      Option(file("/usr/lib/jvm").listFiles).toSeq.flatten ++ Seq(file(sys.props("java.home")))
    candidates.filter(version(_) >= 21).sortBy(version).lastOption
  }

  /** The feature version of the JDK at `home`, read from its `release` file; 0 when it can't be read. */
  def version(home: File): Int =
    Option(home / "release")
      .filter(_.exists)
      .flatMap(release =>
        IO.readLines(release).collectFirst {
          case line if line.startsWith("JAVA_VERSION=") => line.stripPrefix("JAVA_VERSION=").replace("\"", "")
        }
      )
      .flatMap(v => scala.util.Try(v.takeWhile(_.isDigit).toInt).toOption)
      .getOrElse(0)
}
