package rapier.vertx.internal

import io.netty.buffer.Unpooled
import io.vertx.core.http.HttpServerResponse
import io.vertx.core.internal.buffer.BufferInternal
import io.vertx.core.{AsyncResult, Context, Handler}
import rapier.server.spi.{ChunkWriter, ResponseStream}

import java.nio.ByteBuffer

/**
 * Writes one response whose body is pulled chunk by chunk ([[ChunkWriter]]) into Vert.x's response: the next chunk is
 * pulled once the last is written and Vert.x's write queue has room (else on its drain). Every answer of the source is
 * handled on the request's context, through one preallocated handler.
 */
private[vertx] final class ResponseWriter(
    response: HttpServerResponse,
    context: Context,
    chunks: ResponseStream.Chunks,
    done: ResponseWriter.Done
) extends ChunkWriter(chunks),
      Handler[AnyRef]:
  // After a write: pull on, now or once the queue drains. One object for both of Vert.x's callbacks.
  private val afterWrite: Handler[AnyRef] =
    case result: AsyncResult[?] if result.failed => stop()
    case _ =>
      if !isStopped then
        if response.writeQueueFull then response.drainHandler(afterWrite.asInstanceOf[Handler[Void]])
        else next()

  /** Starts writing, and stops if the client goes away. */
  def begin(): Unit =
    response.closeHandler(_ => stop())
    start()

  protected def toConnection(): Unit = context.runOnContext(this.asInstanceOf[Handler[Void]])
  def handle(ignored: AnyRef): Unit = answered()

  protected def headWritten: Boolean = response.headWritten

  protected def write(chunk: ByteBuffer): Unit =
    response
      .write(BufferInternal.buffer(Unpooled.wrappedBuffer(chunk)))
      .onComplete(afterWrite.asInstanceOf[Handler[AsyncResult[Void]]])

  protected def end(): Unit = done.sent(response.end())
  protected def abort(): Unit = response.reset()
  protected def failedBeforeHead(cause: Throwable): Unit = done.failedBeforeHead(cause)

private[vertx] object ResponseWriter:
  /** What the request hears from a writer. */
  trait Done:
    def sent(ended: io.vertx.core.Future[Void]): Unit
    def failedBeforeHead(cause: Throwable): Unit
