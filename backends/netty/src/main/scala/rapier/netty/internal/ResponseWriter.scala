package rapier.netty.internal

import io.netty.buffer.Unpooled
import io.netty.channel.{ChannelFuture, ChannelFutureListener, ChannelHandlerContext}
import io.netty.handler.codec.http.{DefaultHttpContent, HttpResponse, LastHttpContent}
import org.slf4j.LoggerFactory
import rapier.server.spi.{BodyReceiver, EventLoop, ResponseStream}

import java.nio.ByteBuffer

/**
 * Writes one response whose body is pulled chunk by chunk: the next chunk is pulled once the last is written and the
 * connection is writable again, so a slow client slows the source rather than filling memory. The first chunk is
 * pulled before the head is written: a source that fails at once still gets a 500 rather than a cut-short body.
 *
 * The source answers on any thread; every answer is handled on the connection's event loop, by one preallocated
 * task (a chunk costs no allocation here beyond Netty's wrapper of it).
 */
private[netty] final class ResponseWriter(
    ctx: ChannelHandlerContext,
    loop: EventLoop,
    chunks: ResponseStream.Chunks,
    head: HttpResponse,
    events: ResponseWriter.Events
) extends BodyReceiver,
      Runnable:
  import ResponseWriter.log

  @volatile private var chunk: ByteBuffer | Null = null
  @volatile private var ended = false
  @volatile private var failure: Throwable | Null = null

  // Event-loop state.
  private var headWritten = false
  private var written = 0L
  private var waitingWritable = false
  private var stopped = false

  private val afterWrite: ChannelFutureListener = future =>
    if !stopped then
      if !future.isSuccess then stop()
      else if ctx.channel.isWritable then chunks.source.pull(this)
      else waitingWritable = true

  def start(): Unit = chunks.source.pull(this)

  /** The connection can take more: pulls the next chunk if one was held back for it. */
  def writable(): Unit =
    if waitingWritable && !stopped && ctx.channel.isWritable then
      waitingWritable = false
      chunks.source.pull(this)

  /** The connection is gone: the source is cancelled, and nothing more is written. */
  def stop(): Unit =
    if !stopped then
      stopped = true
      chunks.source.cancel()

  def onChunk(c: ByteBuffer): Unit =
    chunk = c
    loop.execute(this)

  def onEnd(): Unit =
    ended = true
    loop.execute(this)

  def onError(e: Throwable): Unit =
    failure = e
    loop.execute(this)

  def run(): Unit =
    if !stopped then
      val f = failure
      val c = chunk
      if f != null then
        stopped = true
        if headWritten then
          log.warn("A response body's source failed after the response started; closing the connection", f)
          ctx.close()
        else events.failedBeforeHead(f)
      else if c != null then
        chunk = null
        val n = c.remaining
        val length = chunks.length
        if length >= 0 && written + n > length then tooLong(length)
        else
          writeHead()
          written += n
          ctx.writeAndFlush(DefaultHttpContent(Unpooled.wrappedBuffer(c))).addListener(afterWrite)
      else if ended then
        stopped = true
        writeHead()
        val length = chunks.length
        if length >= 0 && written != length then
          log.warn(s"A response body ended after $written of its declared $length bytes; closing the connection")
          ctx.flush()
          ctx.close()
        else events.sent(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT))

  private def writeHead(): Unit =
    if !headWritten then
      headWritten = true
      ctx.write(head)

  private def tooLong(length: Long): Unit =
    log.warn(s"A response body ran past its declared $length bytes; closing the connection")
    stop()
    ctx.flush()
    ctx.close()

private[netty] object ResponseWriter:
  private val log = LoggerFactory.getLogger(classOf[ResponseWriter])

  /** What the connection hears from a writer. */
  trait Events:
    /** The body's end is written by `last`. */
    def sent(last: ChannelFuture): Unit

    /** The source failed before anything was written: the response can still be another. */
    def failedBeforeHead(cause: Throwable): Unit
