package rapier.server.internal

import rapier.PartData

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Path, StandardOpenOption}

/** Where the content of a multipart body's part goes as [[DelimiterSearch]] finds it; `size` counts it. */
private[server] sealed trait PartContent:
  var size: Long = 0L

  /** Takes `buf`'s bytes from `from` to `until` (absolute indices), which are valid only until the next pull. */
  def write(buf: ByteBuffer, from: Int, until: Int): Unit

  /** Takes the bytes of `bytes` from `from` to `until`. */
  def write(bytes: Array[Byte], from: Int, until: Int): Unit

private[server] object PartContent:
  /** Bytes that are no part's content (a preamble, transport padding): counted and dropped. */
  final class Skipped extends PartContent:
    def write(buf: ByteBuffer, from: Int, until: Int): Unit = size += until - from
    def write(bytes: Array[Byte], from: Int, until: Int): Unit = size += until - from

  /** A part kept in memory, in an array that grows by doubling. */
  final class InMemory extends PartContent:
    private var array = new Array[Byte](256)

    private def room(n: Int): Int =
      val at = size.toInt
      if at + n > array.length then array = java.util.Arrays.copyOf(array, math.max(at + n, array.length * 2))
      size += n
      at

    // `room` may replace the array: it is called before the array is read
    def write(buf: ByteBuffer, from: Int, until: Int): Unit =
      val at = room(until - from)
      buf.get(from, array, at, until - from)
    def write(bytes: Array[Byte], from: Int, until: Int): Unit =
      val at = room(until - from)
      System.arraycopy(bytes, from, array, at, until - from)

    def data: PartData = PartData.InMemory(java.util.Arrays.copyOf(array, size.toInt))

  /**
   * A part written to a temporary file. Writes are queued as views of the chunk they came in (no copy) and made by
   * [[flush]], which blocks: it runs on the blocking executor, and the chunk is not let go until it has. The file is
   * created by the first flush, off the connection's thread, and `created` is told of it at once so that it is
   * deleted whatever happens next.
   */
  final class OnDisk(files: TempFiles, created: Path => Unit) extends PartContent:
    private val queued = scala.collection.mutable.ArrayBuffer.empty[ByteBuffer]
    private var file: Path | Null = null
    private var channel: FileChannel | Null = null

    def write(buf: ByteBuffer, from: Int, until: Int): Unit =
      queued += buf.slice(from, until - from)
      size += until - from
    def write(bytes: Array[Byte], from: Int, until: Int): Unit =
      queued += ByteBuffer.wrap(bytes, from, until - from)
      size += until - from

    def hasQueued: Boolean = queued.nonEmpty

    /** Writes what is queued, then closes the file if `last`. Blocks. */
    def flush(last: Boolean): Unit =
      if channel == null then
        val f = files.create("rapier-upload-", ".part")
        file = f
        created(f)
        channel = FileChannel.open(f, StandardOpenOption.WRITE)
      val c = channel.nn
      var n = 0L
      queued.foreach(b => n += b.remaining)
      files.take(file.nn, n)
      queued.foreach(b => while b.hasRemaining do c.write(b))
      queued.clear()
      if last then close()

    /** Closes the file, if open; safe to call more than once. */
    def close(): Unit =
      val c = channel
      if c != null then
        channel = null
        try c.close()
        catch case scala.util.control.NonFatal(_) => ()

    /** Closes the file and deletes it, if it was created. */
    def delete(): Unit =
      close()
      val f = file
      if f != null then files.delete(f.nn)

    /** The file, once [[flush]] has closed it. */
    def data: PartData = PartData.OnDisk(file.nn, size)
