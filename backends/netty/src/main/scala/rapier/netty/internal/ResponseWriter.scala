package rapier.netty.internal

import io.netty.buffer.Unpooled
import io.netty.channel.{ChannelFuture, ChannelHandlerContext}
import io.netty.handler.codec.http.{DefaultHttpContent, HttpResponse, LastHttpContent}
import rapier.server.spi.{ChunkWriter, EventLoop, ResponseStream}

import java.nio.ByteBuffer

/**
 * Writes one response whose body is pulled chunk by chunk ([[ChunkWriter]]) on a Netty connection: the next chunk is
 * pulled once the last is written and the connection is writable again. Every answer of the source is handled on the
 * connection's event loop, by one preallocated task (a chunk costs no allocation here beyond Netty's wrapper of it).
 */
private[netty] final class ResponseWriter(
    ctx: ChannelHandlerContext,
    loop: EventLoop,
    chunks: ResponseStream.Chunks,
    head: HttpResponse,
    events: ResponseWriter.Events
) extends ChunkWriter(chunks),
      Runnable:
  private var headSent = false
  private val gate = WriteGate(ctx, () => if !isStopped then next(), () => if !isStopped then stop())

  /** The connection can take more: pulls the next chunk if one was held back for it. */
  def writable(): Unit = gate.writable()

  protected def toConnection(): Unit = loop.execute(this)
  def run(): Unit = answered()

  protected def headWritten: Boolean = headSent

  protected def write(chunk: ByteBuffer): Unit =
    writeHead()
    ctx.writeAndFlush(DefaultHttpContent(Unpooled.wrappedBuffer(chunk))).addListener(gate.afterWrite)

  protected def end(): Unit =
    writeHead()
    events.sent(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT))

  protected def abort(): Unit =
    ctx.flush()
    ctx.close()

  // A body that ended short still tells the client its head: its length is what shows the body cut.
  override protected def endedShort(): Unit =
    writeHead()
    abort()

  protected def failedBeforeHead(cause: Throwable): Unit = events.failedBeforeHead(cause)

  private def writeHead(): Unit =
    if !headSent then
      headSent = true
      ctx.write(head)

private[netty] object ResponseWriter:
  /** What the connection hears from a writer. */
  trait Events:
    /** The body's end is written by `last`. */
    def sent(last: ChannelFuture): Unit

    /** The source failed before anything was written: the response can still be another. */
    def failedBeforeHead(cause: Throwable): Unit
