package rapier.server.compression

import java.nio.ByteBuffer
import java.util.zip.{CRC32, Deflater}

/**
 * One body's gzip (RFC 1952) or deflate (zlib, RFC 1950) encoding, fed in pieces. What it makes collects in one array,
 * read with [[output]] and reused from the next piece on. The native deflater is freed by [[end]], which every path
 * ends with; after it, nothing more is made.
 */
private[server] final class Encoder(val gzip: Boolean, level: Int, sizeHint: Int):
  import Encoder.*

  private val deflater = Deflater(level, gzip) // gzip: raw deflate inside its own header and trailer
  private val crc = if gzip then CRC32() else null
  private var read = 0L
  private var out = new Array[Byte](math.max(64, sizeHint))
  private var size = 0
  private var started = false
  private var ended = false

  def isEnded: Boolean = synchronized(ended)

  /** Compresses `bytes` (what remains of it), then flushes when `flush`: what was made so far decodes on its own. */
  def input(bytes: ByteBuffer, flush: Boolean): Unit = synchronized {
    if !ended then
      start()
      if crc != null then crc.nn.update(bytes.duplicate())
      read += bytes.remaining
      deflater.setInput(bytes)
      while !deflater.needsInput do deflate(Deflater.NO_FLUSH)
      if flush then
        var full = true
        // Deflater's rule for a flush: called again while it fills all the room it is given.
        while full do full = deflate(Deflater.SYNC_FLUSH) == 0
  }

  /** Ends the body: the rest of the deflate stream, and gzip's trailer. */
  def finish(): Unit = synchronized {
    if !ended then
      start()
      deflater.finish()
      while !deflater.finished do deflate(Deflater.NO_FLUSH)
      if crc != null then
        writeIntLe(crc.nn.getValue.toInt)
        writeIntLe(read.toInt) // ISIZE: the length modulo 2^32
  }

  /** What was made since the last call, in this encoder's array: valid until the next `input` or `finish`. */
  def output(): ByteBuffer = synchronized {
    val made = ByteBuffer.wrap(out, 0, size)
    size = 0
    made
  }

  /** What was made, as an array of its own. */
  def bytes(): Array[Byte] = synchronized {
    val made = java.util.Arrays.copyOf(out, size)
    size = 0
    made
  }

  def end(): Unit = synchronized {
    if !ended then
      ended = true
      deflater.end()
  }

  private def start(): Unit =
    if !started then
      started = true
      if gzip then write(GzipHeader)

  // One deflate call into the room left; returns the room left after it.
  private def deflate(mode: Int): Int =
    if size == out.length then out = java.util.Arrays.copyOf(out, out.length * 2)
    size += deflater.deflate(out, size, out.length - size, mode)
    out.length - size

  private def write(bytes: Array[Byte]): Unit =
    if size + bytes.length > out.length then out = java.util.Arrays.copyOf(out, (size + bytes.length) * 2)
    System.arraycopy(bytes, 0, out, size, bytes.length)
    size += bytes.length

  private def writeIntLe(v: Int): Unit =
    write(Array(v.toByte, (v >>> 8).toByte, (v >>> 16).toByte, (v >>> 24).toByte))

private object Encoder:
  // ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown (RFC 1952 §2.3)
  private val GzipHeader = Array[Byte](0x1f, 0x8b.toByte, 8, 0, 0, 0, 0, 0, 0, 0xff.toByte)
