package rapier.server.files

import java.io.IOException
import java.nio.file.attribute.BasicFileAttributes
import java.nio.file.{Files, LinkOption, Path}
import java.time.Instant

/** What a path below a static service's root names. */
private[files] enum Entry:
  /**
   * A regular file, readable, with its strong validator (`"size-time"` or `"size-crc"`, quoted) and its time as HTTP
   * writes it (null when unknown).
   */
  case File(path: Path, size: Long, modified: Instant | Null, etag: String, lastModified: String | Null)
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

  // The entries found, kept while their length and time are those the file system reports: their tag and date are
  // made once. Only files that exist get here, so a client can't grow it.
  private val known = java.util.concurrent.ConcurrentHashMap[Path, Entry.File]()

  /** One `lstat` per segment: a path without links needs nothing more; one with a link is resolved and checked. */
  def lookup(segments: List[String]): Entry =
    var path = realRoot
    var rest = segments
    var attributes: BasicFileAttributes | Null = null
    var linked = false
    try
      while rest.nonEmpty do
        val next = path.resolve(rest.head)
        if next.getParent != path || next.getFileName.toString != rest.head then return Entry.Missing
        if !linked then
          attributes = Files.readAttributes(next, classOf[BasicFileAttributes], LinkOption.NOFOLLOW_LINKS)
          linked = attributes.nn.isSymbolicLink
        path = next
        rest = rest.tail
    catch case _: IOException | _: SecurityException => return Entry.Missing
    if linked then DirectorySource.entry(path, if linksLeavingRoot then null else realRoot)
    else if attributes == null || attributes.nn.isDirectory then Entry.Directory
    else
      val found = attributes.nn
      if !found.isRegularFile || !Files.isReadable(path) then Entry.Missing
      else
        val modified = found.lastModifiedTime.toInstant
        known.get(path) match
          case same: Entry.File if same.size == found.size && same.modified == modified => same
          case _ =>
            val made = DirectorySource.file(path, found.size, modified)
            known.put(path, made)
            made

private[server] object DirectorySource:
  /** The entry at `path`, following links, checked to lie below `within` (its real path) when that is given. */
  def entry(path: Path, within: Path | Null): Entry =
    try
      val attributes = Files.readAttributes(path, classOf[BasicFileAttributes])
      if within != null && !path.toRealPath().startsWith(within.nn) then Entry.Missing
      else if attributes.isDirectory then Entry.Directory
      else if !attributes.isRegularFile || !Files.isReadable(path) then Entry.Missing
      else file(path, attributes.size, attributes.lastModifiedTime.toInstant)
    catch case _: IOException | _: SecurityException => Entry.Missing

  /** A file with its validators: a tag of its length and time, and the time as HTTP writes it. */
  def file(path: Path, size: Long, modified: Instant): Entry.File =
    Entry.File(path, size, modified, etagOf(size, modified), rapier.model.HttpDate.format(modified))

  /** A file's strong validator (RFC 9110 §8.8.3): its length and time, which change when it is written again. */
  private[server] def etagOf(size: Long, modified: Instant): String =
    s"\"${java.lang.Long.toHexString(size)}-${java.lang.Long.toHexString(modified.toEpochMilli)}\""
