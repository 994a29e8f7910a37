package rapier.server.compression

import rapier.server.spi.*

import java.nio.ByteBuffer
import java.util.zip.{CRC32, DataFormatException, Inflater}

/**
 * A request body with `Content-Encoding: gzip` (RFC 1952, members one after another) or `deflate` (zlib, RFC 1950),
 * decoded as it is pulled: at most one piece of `PieceSize` bytes per pull, so a small body that decodes to a huge one
 * (a decompression bomb) is stopped at `limit` decoded bytes with a 413, having held no more than that. Corrupt data
 * is a 400. The compressed bytes are copied once, into this source's own array, so that the upstream chunk is let go at
 * once.
 */
private[server] final class InflatingSource(source: BodySource, gzip: Boolean, limit: Long) extends BodySource:
  import InflatingSource.*

  private val inflater = Inflater(gzip) // gzip: raw deflate, its header and trailer read here
  private val crc = CRC32()
  private val out = new Array[Byte](PieceSize)
  private var pending = new Array[Byte](8192)
  private var pos = 0
  private var end = 0
  private var upstreamEnded = false
  private var state = if gzip then Header else Body
  private var decoded = 0L
  private var member = 0L // bytes decoded in the current gzip member, for its trailer
  private var downstream: BodyReceiver | Null = null
  private var finished = false
  // A pull upstream answered before it returns resumes the loop that made it, rather than a new one inside it.
  private val pulling = java.util.concurrent.atomic.AtomicInteger(Idle)

  private val upstream = new BodyReceiver:
    def onChunk(chunk: ByteBuffer): Unit =
      InflatingSource.this.synchronized(append(chunk))
      resume()
    def onEnd(): Unit =
      InflatingSource.this.synchronized { upstreamEnded = true }
      resume()
    def onError(cause: Throwable): Unit = fail(cause)

  private def resume(): Unit = if !pulling.compareAndSet(Pulling, Arrived) then produce()

  def declaredLength: Long = -1L

  def pull(receiver: BodyReceiver): Unit =
    downstream = receiver
    if finished then receiver.onEnd() else produce()

  def cancel(): Unit =
    source.cancel()
    synchronized(release())

  override def answersOnThisThread: Boolean = source.answersOnThisThread

  // Runs the decoding until it can answer the pull: a piece, the end, an error, or a pull upstream for more.
  private def produce(): Unit = synchronized {
    try
      var answered = false
      while !answered do
        state match
          case Header =>
            val n = gzipHeaderLength(pending, pos, end)
            if n == -2 then throw Corrupt
            else if n == -1 then answered = needMore()
            else
              pos += n
              inflater.reset()
              crc.reset()
              member = 0L
              inflater.setInput(pending, pos, end - pos)
              state = Body
          case Body =>
            if inflater.finished then state = if gzip then Trailer else Done
            else if inflater.needsInput then answered = needMore()
            else
              val k = inflater.inflate(out, 0, out.length)
              pos = end - inflater.getRemaining
              if inflater.needsDictionary then throw Corrupt
              if k > 0 then
                decoded += k
                if decoded > limit then throw BodyTooLargeException(limit)
                crc.update(out, 0, k)
                member += k
                answered = true
                downstream.nn.onChunk(ByteBuffer.wrap(out, 0, k))
          case Trailer =>
            if end - pos < 8 then answered = needMore()
            else
              if intLe(pending, pos) != crc.getValue.toInt || intLe(pending, pos + 4) != member.toInt then throw Corrupt
              pos += 8
              state = Between
          case _ =>
            // After a gzip member another may follow; after a zlib stream, nothing may.
            if pos < end then
              if state == Between then state = Header else throw Corrupt
            else if upstreamEnded then
              answered = true
              finished = true
              release()
              downstream.nn.onEnd()
            else answered = needMore()
    catch
      case _: DataFormatException => fail(Corrupt)
      case e: RequestBodyException => fail(e)
  }

  // More compressed bytes are needed: pulled from upstream (the answer resumes `produce`), or the body ended short.
  private def needMore(): Boolean =
    if upstreamEnded then throw Corrupt
    pulling.set(Pulling)
    source.pull(upstream)
    // Answered already: the loop goes on with what arrived. Otherwise the answer calls `produce` when it comes.
    if pulling.compareAndSet(Pulling, Idle) then true
    else
      pulling.set(Idle)
      false

  private def append(chunk: ByteBuffer): Unit =
    val n = chunk.remaining
    if pos > 0 then
      System.arraycopy(pending, pos, pending, 0, end - pos)
      end -= pos
      pos = 0
    if end + n > pending.length then pending = java.util.Arrays.copyOf(pending, math.max(end + n, pending.length * 2))
    chunk.get(pending, end, n)
    end += n
    if state == Body then inflater.setInput(pending, pos, end - pos)

  private def fail(cause: Throwable): Unit = synchronized {
    finished = true
    source.cancel()
    release()
    downstream.nn.onError(cause)
  }

  private def release(): Unit = inflater.end()

private object InflatingSource:
  val PieceSize = 64 * 1024
  private val Header = 0
  private val Body = 1
  private val Trailer = 2
  private val Between = 3
  private val Done = 4
  private val Idle = 0
  private val Pulling = 1
  private val Arrived = 2

  private val Corrupt =
    RequestBodyException(
      RequestSyntax.Invalid(
        rapier.model.StatusCode.BadRequest,
        "The request body is not valid data of its Content-Encoding"
      )
    )

  // Names and comments of a gzip header end at a NUL; past this, a header is refused rather than held.
  private val MaxHeader = 64 * 1024

  /** The length of the gzip member header at `from` (RFC 1952 §2.3), -1 when it is incomplete, -2 when invalid. */
  def gzipHeaderLength(b: Array[Byte], from: Int, to: Int): Int =
    if to - from < 10 then (if to > from && (b(from) != 0x1f.toByte) then -2 else -1)
    else if b(from) != 0x1f.toByte || b(from + 1) != 0x8b.toByte || b(from + 2) != 8 then -2
    else
      val flags = b(from + 3) & 0xff
      if (flags & 0xe0) != 0 then -2
      else
        var at = from + 10
        var complete = true
        if (flags & 4) != 0 then // FEXTRA: a length, then that many bytes
          if to - at < 2 then complete = false
          else at += 2 + ((b(at) & 0xff) | ((b(at + 1) & 0xff) << 8))
        for flag <- List(8, 16) do // FNAME, FCOMMENT: up to a NUL
          if complete && (flags & flag) != 0 then
            while at < to && b(at) != 0 do at += 1
            if at >= to then complete = false else at += 1
        if complete && (flags & 2) != 0 then at += 2 // FHCRC
        if at - from > MaxHeader || (!complete && to - from > MaxHeader) then -2
        else if !complete || at > to then -1
        else at - from

  private def intLe(b: Array[Byte], at: Int): Int =
    (b(at) & 0xff) | ((b(at + 1) & 0xff) << 8) | ((b(at + 2) & 0xff) << 16) | ((b(at + 3) & 0xff) << 24)
