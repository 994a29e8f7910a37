package rapier.perf

import java.io.File
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * The JDKs a server may run on: from `min` (21 for virtual threads) up to `max` when a library it uses is bound to a
 * range of them, with the JVM options it then needs (`--enable-preview` for a preview API), and why.
 */
final case class JavaNeed(min: Int, max: Option[Int] = None, options: List[String] = Nil, why: String = ""):
  def accepts(version: Int): Boolean = version >= min && max.forall(version <= _)

  override def toString: String =
    max.fold(s"JDK $min or newer")(m => if m == min then s"JDK $min" else s"JDK $min to $m")

object JavaNeed:
  /** What every server of the suite needs at least: the JDK the project builds on. */
  val Baseline: JavaNeed = JavaNeed(17)

/**
 * Finds the JDK a server runs on: the suite's own when it fits, else the newest that fits among the JDK homes named in
 * `RAPIER_JDKS` (separated as a class path is), `RAPIER_JDK21`, and those under `/usr/lib/jvm`.
 */
object Jdks:
  private val own: String = ProcessHandle.current.info.command.orElse("java")
  private val ownVersion: Int = Runtime.version.feature

  /** The `java` command for a server needing `need`, or why there is none. */
  def javaFor(need: JavaNeed): Either[String, String] =
    if need.accepts(ownVersion) then Right(own)
    else
      candidates.filter(home => need.accepts(versionOf(home))).sortBy(versionOf).lastOption match
        case Some(home) => Right(home.resolve("bin").resolve("java").toString)
        case None =>
          val because = if need.why.isEmpty then "" else s" (${need.why})"
          Left(
            s"needs $need$because, and the suite runs on $ownVersion with none other found " +
              "(set RAPIER_JDKS to the homes of other JDKs)"
          )

  private def candidates: List[Path] =
    sys.env.get("RAPIER_JDKS").toList.flatMap(_.split(File.pathSeparator)).filter(_.nonEmpty).map(Path.of(_)) ++
      sys.env.get("RAPIER_JDK21").map(Path.of(_)).toList ++
      Try(Files.list(Path.of("/usr/lib/jvm")).iterator.asScala.toList.sorted).getOrElse(Nil)

  /** A JDK home's feature version, from its `release` file; 0 when it can't be told. */
  private def versionOf(home: Path): Int =
    Try(Files.readAllLines(home.resolve("release")).asScala.collectFirst {
      case line if line.startsWith("JAVA_VERSION=") =>
        line.stripPrefix("JAVA_VERSION=").replace("\"", "").takeWhile(_.isDigit).toInt
    }.getOrElse(0)).getOrElse(0)
