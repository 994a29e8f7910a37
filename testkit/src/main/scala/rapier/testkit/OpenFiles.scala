package rapier.testkit

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * The files this JVM (the server under test, in the kit) holds open, read from the links in `/proc/self/fd`: a file a
 * server forgot to close stays counted until a collection comes to its channel, even once deleted, which its absence
 * from the directory can't show. Only Linux has them; elsewhere [[available]] is false.
 */
object OpenFiles:
  private val descriptors = Path.of("/proc/self/fd")

  def available: Boolean = Files.isDirectory(descriptors)

  /** How many descriptors are open on a file whose path `matches` (a deleted file's path, as the kernel has it). */
  def count(matches: Path => Boolean): Int =
    val links = Files.list(descriptors)
    try
      links.iterator.asScala.count { fd =>
        try matches(Path.of(Files.readSymbolicLink(fd).toString.stripSuffix(" (deleted)")))
        catch case _: java.io.IOException => false // closed between the listing and the reading
      }
    finally links.close()

  /** How many are open on `path`. */
  def on(path: Path): Int = count(_ == path)
