package rapier.vertx.internal

import io.netty.buffer.Unpooled
import io.vertx.core.http.HttpServerResponse
import io.vertx.core.internal.buffer.BufferInternal
import io.vertx.core.{AsyncResult, Context, Handler}
import org.slf4j.LoggerFactory
import rapier.server.spi.{BodyReceiver, ResponseStream}

import java.nio.ByteBuffer

/**
 * Writes one response whose body is pulled chunk by chunk into Vert.x's response: the next chunk is pulled once the
 * last is written and Vert.x's write queue has room (else on its drain), so a slow client slows the source. The first
 * chunk is pulled before the head is written: a source that fails at once still gets a 500.
 *
 * The source answers on any thread; every answer is handled on the request's context, through one preallocated
 * handler.
 */
private[vertx] final class ResponseWriter(
    response: HttpServerResponse,
    context: Context,
    chunks: ResponseStream.Chunks,
    done: ResponseWriter.Done
) extends BodyReceiver,
      Handler[AnyRef]:
  import ResponseWriter.log

  @volatile private var chunk: ByteBuffer | Null = null
  @volatile private var ended = false
  @volatile private var failure: Throwable | Null = null
  private var written = 0L
  private var stopped = false

  // After a write: pull on, now or once the queue drains. One object for both of Vert.x's callbacks.
  private val afterWrite: Handler[AnyRef] =
    case result: AsyncResult[?] if result.failed => stop()
    case _ =>
      if !stopped then
        if response.writeQueueFull then response.drainHandler(afterWrite.asInstanceOf[Handler[Void]])
        else chunks.source.pull(this)

  def start(): Unit =
    response.closeHandler(_ => stop())
    chunks.source.pull(this)

  def stop(): Unit =
    if !stopped then
      stopped = true
      chunks.source.cancel()

  def onChunk(c: ByteBuffer): Unit =
    chunk = c
    context.runOnContext(this.asInstanceOf[Handler[Void]])

  def onEnd(): Unit =
    ended = true
    context.runOnContext(this.asInstanceOf[Handler[Void]])

  def onError(e: Throwable): Unit =
    failure = e
    context.runOnContext(this.asInstanceOf[Handler[Void]])

  def handle(ignored: AnyRef): Unit =
    if !stopped then
      val f = failure
      val c = chunk
      if f != null then
        stopped = true
        if response.headWritten then
          log.warn("A response body's source failed after the response started; closing the connection", f)
          response.reset()
        else done.failedBeforeHead(f)
      else if c != null then
        chunk = null
        val n = c.remaining
        if chunks.length >= 0 && written + n > chunks.length then
          log.warn(s"A response body ran past its declared ${chunks.length} bytes; closing the connection")
          stop()
          response.reset()
        else
          written += n
          response
            .write(BufferInternal.buffer(Unpooled.wrappedBuffer(c)))
            .onComplete(afterWrite.asInstanceOf[Handler[AsyncResult[Void]]])
      else if ended then
        stopped = true
        if chunks.length >= 0 && written != chunks.length then
          log.warn(s"A response body ended after $written of its declared ${chunks.length} bytes; closing")
          response.reset()
        else done.sent(response.end())

private[vertx] object ResponseWriter:
  private val log = LoggerFactory.getLogger(classOf[ResponseWriter])

  /** What the request hears from a writer. */
  trait Done:
    def sent(ended: io.vertx.core.Future[Void]): Unit
    def failedBeforeHead(cause: Throwable): Unit
