package rapier.perf

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * How much of a server's CPU samples belong to a library, from async-profiler's collapsed stacks (`frame;frame;…;leaf
 * count`, root first). A sample is the library's own when the innermost frame that is neither the JDK's, Scala's
 * standard library's nor the JVM's own (native and kernel frames) is in one of the library's packages: the library's
 * code, and what it calls of the JDK and Scala from there. The seeds counted the same way ("tapir frames consume
 * 10.38% of CPU samples"). The share on stacks counts a sample once if any of its frames is the library's, so it also
 * holds what the backend does on the library's behalf.
 */
object Profiles:
  final case class Share(own: Double, onStack: Double, samples: Long)

  private val platform = List("java.", "javax.", "jdk.", "sun.", "com.sun.", "scala.")

  /** A Java frame as `a.b.C.method`, whether the profiler wrote its class with slashes or dots; None for the rest. */
  private def javaFrame(frame: String): Option[String] =
    val f = frame.stripSuffix("_[j]").stripSuffix("_[i]").stripSuffix("_[0]").stripSuffix("_[1]").replace('/', '.')
    // Java frames name a class and a method; native frames (libc, the JVM, the kernel `_[k]`) don't.
    Option.when(f.contains('.') && !f.endsWith("_[k]") && !f.contains(".so") && f.head.isLetter)(f)

  def share(collapsed: Iterator[String], packages: List[String], excluded: List[String]): Option[Share] =
    def ours(frame: String) = packages.exists(frame.startsWith) && !excluded.exists(frame.startsWith)
    var total = 0L
    var own = 0L
    var onStack = 0L
    collapsed.foreach { line =>
      val at = line.lastIndexOf(' ')
      if at > 0 then
        line.substring(at + 1).trim.toLongOption.foreach { count =>
          val frames = line.substring(0, at).split(';').toList.flatMap(javaFrame)
          total += count
          frames.reverse.find(f => !platform.exists(f.startsWith)).filter(ours).foreach(_ => own += count)
          if frames.exists(ours) then onStack += count
        }
    }
    Option.when(total > 0)(Share(own.toDouble / total, onStack.toDouble / total, total))

  def share(file: Path, packages: List[String], excluded: List[String]): Option[Share] =
    if !Files.isRegularFile(file) then None
    else
      val lines = Files.lines(file)
      try share(lines.iterator.asScala, packages, excluded)
      finally lines.close()
