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

  /**
   * What each open descriptor is, as the kernel names it: a file's path (a deleted one's followed by ` (deleted)`),
   * `socket:[inode]`, `anon_inode:[eventpoll]` and so on.
   */
  def all(): List[String] =
    val links = Files.list(descriptors)
    try
      links.iterator.asScala.flatMap { fd =>
        try Some(Files.readSymbolicLink(fd).toString)
        catch case _: java.io.IOException => None // closed between the listing and the reading
      }.toList
    finally links.close()

  /** How many descriptors are open on a file whose path `matches` (a deleted file's path, as it was). */
  def count(matches: Path => Boolean): Int =
    all().count(link => link.startsWith("/") && matches(Path.of(link.stripSuffix(" (deleted)"))))

  /** How many are open on `path`. */
  def on(path: Path): Int = count(_ == path)

  /** How many sockets are open, or 0 where descriptors can't be read. */
  def sockets(): Int = if available then all().count(_.startsWith("socket:")) else 0
