package rapier.perf

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * The JDK a server runs on: the suite's own, unless the server needs a newer one (virtual threads need 21), which is
 * looked for in `RAPIER_JDK21`, then under `/usr/lib/jvm`, the newest that is new enough.
 */
object Jdks:
  private val own: String = ProcessHandle.current.info.command.orElse("java")
  private val ownVersion: Int = Runtime.version.feature

  /** The `java` command for a server needing JDK `version`, or why there is none. */
  def javaFor(version: Int): Either[String, String] =
    if ownVersion >= version then Right(own)
    else
      candidates.filter(versionOf(_) >= version).sortBy(versionOf).lastOption match
        case Some(home) => Right(home.resolve("bin").resolve("java").toString)
        case None =>
          Left(
            s"needs JDK $version or newer, and the suite runs on $ownVersion with none other found " +
              "(set RAPIER_JDK21 to a JDK's home)"
          )

  private def candidates: List[Path] =
    sys.env.get("RAPIER_JDK21").map(Path.of(_)).toList ++
      Try(Files.list(Path.of("/usr/lib/jvm")).iterator.asScala.toList).getOrElse(Nil)

  /** A JDK home's feature version, from its `release` file; 0 when it can't be told. */
  private def versionOf(home: Path): Int =
    Try(Files.readAllLines(home.resolve("release")).asScala.collectFirst {
      case line if line.startsWith("JAVA_VERSION=") =>
        line.stripPrefix("JAVA_VERSION=").replace("\"", "").takeWhile(_.isDigit).toInt
    }.getOrElse(0)).getOrElse(0)
