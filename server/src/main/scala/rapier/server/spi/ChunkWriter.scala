package rapier.server.spi

import org.slf4j.LoggerFactory

import java.nio.ByteBuffer

/**
 * Writes one response body pulled from a [[ResponseStream.Chunks]], with the decisions every backend makes alike,
 * written once: the first chunk is pulled before the head is written, so a source that fails at once still becomes
 * another response ([[failedBeforeHead]]); a source that fails later, runs past its declared length or ends short of
 * it cuts the response ([[abort]]); each chunk is written as it is, and the next pulled only once the backend says so
 * ([[next]], once the chunk is written and the connection can take more), so a slow client slows the source.
 *
 * The source answers on any thread: each answer is kept, and the backend runs [[answered]] on the connection's thread
 * ([[toConnection]]). A backend extends this with how to write, end and abort on its connection.
 */
abstract class ChunkWriter(chunks: ResponseStream.Chunks) extends BodyReceiver:
  @volatile private var chunk: ByteBuffer | Null = null
  @volatile private var ended = false
  @volatile private var failure: Throwable | Null = null
  // The connection's thread only.
  private var written = 0L
  private var stopped = false

  /** Runs [[answered]] on the connection's thread. */
  protected def toConnection(): Unit

  /** Whether the response's head has gone out. */
  protected def headWritten: Boolean

  /** Writes a chunk (the head first, if not yet), then calls [[next]] once it is written and more can go. */
  protected def write(chunk: ByteBuffer): Unit

  /** Writes the body's end: the body is whole, of its declared length if it has one. */
  protected def end(): Unit

  /** Closes the connection without the body's end, so that the client sees the response cut short. */
  protected def abort(): Unit

  /** Cuts short a body that ended before its declared length; by default as any [[abort]]. */
  protected def endedShort(): Unit = abort()

  /** The source failed before anything was written: the backend answers with another response. */
  protected def failedBeforeHead(cause: Throwable): Unit

  /** Starts: pulls the first chunk. */
  final def start(): Unit = chunks.source.pull(this)

  /** Pulls the next chunk, unless the response is over. */
  protected final def next(): Unit = if !stopped then chunks.source.pull(this)

  /** Whether the response is over: written, cut, or its client gone. */
  protected final def isStopped: Boolean = stopped

  /** The client is gone or the write failed: the source is cancelled, and nothing more is written. */
  final def stop(): Unit =
    if !stopped then
      stopped = true
      chunks.source.cancel()

  final def onChunk(c: ByteBuffer): Unit =
    chunk = c
    toConnection()

  final def onEnd(): Unit =
    ended = true
    toConnection()

  final def onError(e: Throwable): Unit =
    failure = e
    toConnection()

  /** Acts on the source's last answer, on the connection's thread. */
  protected final def answered(): Unit =
    if !stopped then
      val f = failure
      val c = chunk
      val length = chunks.length
      if f != null then
        stopped = true
        if headWritten then
          ChunkWriter.log.warn("A response body's source failed after the response started; closing the connection", f)
          abort()
        else failedBeforeHead(f)
      else if c != null then
        chunk = null
        val n = c.remaining
        if length >= 0 && written + n > length then
          ChunkWriter.log.warn(s"A response body ran past its declared $length bytes; closing the connection")
          stop()
          abort()
        else
          written += n
          write(c)
      else if ended then
        stopped = true
        if length >= 0 && written != length then
          ChunkWriter.log.warn(s"A response body ended after $written of its declared $length bytes; closing")
          endedShort()
        else end()

private object ChunkWriter:
  private val log = LoggerFactory.getLogger(classOf[ChunkWriter])
