package rapier.server.files

import java.io.IOException
import java.nio.file.attribute.BasicFileAttributes
import java.nio.file.{Files, Path}
import java.time.Instant

/** What a path below a static service's root names. */
private[files] enum Entry:
  /** A regular file, readable, with its strong validator (`"size-time"` or `"size-crc"`, quoted). */
  case File(path: Path, size: Long, modified: Instant | Null, etag: String)
  case Directory
  case Missing

/**
 * Where a static service finds its files. `lookup` is given the request's segments, which the router has already
 * refused when one is `.`, `..`, empty or holds `/`, `\` or a control character, whatever their encoding.
 */
private[files] trait FileSource:
  def lookup(segments: List[String]): Entry

/**
 * The files below `root` on disk. A segment must name one entry of its directory (so nothing the file system reads
 * specially, like an absolute path, can slip in), and the file found must lie below the root's real path unless
 * `linksLeavingRoot`: a link inside the root pointing out of it is not followed. Only regular readable files are
 * served: a FIFO or a device would hang or leak.
 */
private[files] final class DirectorySource(root: Path, linksLeavingRoot: Boolean) extends FileSource:
  private val realRoot: Path =
    try root.toRealPath()
    catch
      case e: IOException =>
        throw IllegalArgumentException(s"static files: the directory $root can't be read (${e.getMessage})", e)
  require(Files.isDirectory(realRoot), s"static files: $root is not a directory")

  def lookup(segments: List[String]): Entry =
    var path = realRoot
    var rest = segments
    while rest.nonEmpty do
      val next = path.resolve(rest.head)
      if next.getParent != path || next.getFileName.toString != rest.head then return Entry.Missing
      path = next
      rest = rest.tail
    DirectorySource.entry(path, if linksLeavingRoot then null else realRoot)

private[files] object DirectorySource:
  /** The entry at `path`, checked to lie below `within` (its real path) when that is given. */
  def entry(path: Path, within: Path | Null): Entry =
    try
      val attributes = Files.readAttributes(path, classOf[BasicFileAttributes])
      if within != null && !path.toRealPath().startsWith(within.nn) then Entry.Missing
      else if attributes.isDirectory then Entry.Directory
      else if !attributes.isRegularFile || !Files.isReadable(path) then Entry.Missing
      else
        val modified = attributes.lastModifiedTime.toInstant
        val etag =
          s"\"${java.lang.Long.toHexString(attributes.size)}-${java.lang.Long.toHexString(modified.toEpochMilli)}\""
        Entry.File(path, attributes.size, modified, etag)
    catch case _: IOException | _: SecurityException => Entry.Missing
