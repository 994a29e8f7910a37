package rapier.server.files

import java.io.IOException
import java.net.URL
import java.nio.file.{Files, Path, StandardCopyOption}
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap
import java.util.zip.{CRC32, CheckedInputStream}

/**
 * Resources below `root` on the class path of `loader`. One in a directory is served from its file, as
 * [[DirectorySource]] serves it (the class path is the application's own, so its links are followed). One in a jar
 * (or anywhere a URL reaches) is copied once, on first use, to a temporary file deleted when the JVM exits: from
 * then on it is sent zero-copy with ranges like any file, and its tag is its length and CRC.
 */
private[files] final class ResourceSource(root: String, loader: ClassLoader) extends FileSource:
  private val base = root.split('/').filter(_.nonEmpty).map(_ + "/").mkString
  private val copies = ConcurrentHashMap[String, Entry]()
  private lazy val copyDirectory: Path =
    val dir = Files.createTempDirectory("rapier-resources-")
    dir.toFile.deleteOnExit()
    dir

  def lookup(segments: List[String]): Entry =
    val name = base + segments.mkString("/")
    loader.getResource(name) match
      case null =>
        // A jar names a directory with a trailing slash, and may not list it at all.
        if segments.nonEmpty && loader.getResource(name + "/") != null then Entry.Directory else Entry.Missing
      case url: URL if url.getProtocol == "file" =>
        try DirectorySource.entry(Path.of(url.toURI), null)
        catch case _: IllegalArgumentException | _: java.net.URISyntaxException => Entry.Missing
      case url: URL =>
        if name.endsWith("/") || segments.isEmpty then Entry.Directory
        else
          // A copy that failed is not remembered: the next request tries again.
          copies.computeIfAbsent(name, _ => copiedOrNull(url)) match
            case null => Entry.Missing
            case entry => entry

  /** The resource at `url` copied to a file of its own; a jar's directory entry is a directory. */
  private def copiedOrNull(url: URL): Entry | Null =
    try
      val connection = url.openConnection()
      connection.setUseCaches(false) // a cached jar would stay open after the copy
      connection match
        case jar: java.net.JarURLConnection if jar.getJarEntry.isDirectory =>
          jar.getJarFile.close() // not cached, so this connection's own
          return Entry.Directory
        case _ => ()
      val target = Files.createTempFile(copyDirectory, "resource-", ".bin")
      target.toFile.deleteOnExit()
      val crc = CRC32()
      val in = CheckedInputStream(connection.getInputStream, crc)
      try Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING)
      finally in.close()
      val size = Files.size(target)
      val modified = connection.getLastModified match
        case 0L => null
        case millis => Instant.ofEpochMilli(millis)
      Entry.File(
        target,
        size,
        modified,
        s"\"${java.lang.Long.toHexString(size)}-${java.lang.Long.toHexString(crc.getValue)}\"",
        if modified == null then null else rapier.model.HttpDate.format(modified)
      )
    catch case _: IOException => null
