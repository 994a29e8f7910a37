package rapier.vertx.internal

import io.vertx.core.buffer.Buffer
import io.vertx.core.http.{HttpClosedException, HttpServerRequest}
import io.vertx.core.internal.buffer.BufferInternal
import io.vertx.core.{Handler, Vertx}
import rapier.server.spi.{ConnectionBody, Refusals, RequestBodyException}
import rapier.vertx.VertxServerOptions

import java.nio.ByteBuffer

/**
 * A body streamed to its endpoint: Vert.x's request paused until the first pull, then resumed and paused again as
 * the reader keeps up or falls behind. Vert.x's buffers are the reader's to keep, so there is nothing to release.
 */
private[vertx] final class VertxBody(
    request: HttpServerRequest,
    length: Long,
    limit: Long,
    continues: Boolean,
    val loop: ContextLoop,
    options: VertxServerOptions,
    connections: Connections,
    responder: Responder
) extends ConnectionBody[Buffer](loop, length, limit, connections.bodies),
      Handler[AnyRef]:
  private val timeoutNanos = rapier.timeoutNanos(options.bodyReadTimeout)
  // The deadline's timer while one is set (-1 for none), and the Vert.x instance that set it
  private var timer = -1L
  private var timers: Vertx | Null = null

  request.pause()
  // One handler for three event types: Handler is invariant in Java, erased at run time.
  request.handler(this.asInstanceOf[Handler[Buffer]])
  request.exceptionHandler(this.asInstanceOf[Handler[Throwable]])
  request.endHandler(this.asInstanceOf[Handler[Void]])

  protected def size(chunk: Buffer): Int = chunk.length
  // `unwrap`, not `getByteBuf`, which makes a slice of it per chunk: the chunk is only read, and only until the next
  // pull. Vert.x copies each chunk into an array of its own: that array is wrapped, one buffer per chunk where a
  // `nioBuffer()` view of it would wrap and then slice.
  protected def view(chunk: Buffer): ByteBuffer =
    val bytes = chunk.asInstanceOf[BufferInternal].unwrap
    if bytes.hasArray && bytes.arrayOffset == 0 && bytes.readerIndex == 0 then
      ByteBuffer.wrap(bytes.array, 0, bytes.writerIndex)
    else bytes.nioBuffer()
  protected def release(chunk: Buffer): Unit = ()
  override protected def firstPull(): Unit = if continues then request.response.writeContinue()

  protected def read(on: Boolean): Unit = if on then request.resume() else request.pause()
  override protected def awaiting(): Unit = if timeoutNanos > 0 && timer < 0 then watch(timeoutNanos)
  // A timer left to fire would hold this body, and its request, for up to `bodyReadTimeout` after the response
  override protected def over(): Unit =
    if timer >= 0 then
      timers.nn.cancelTimer(timer)
      timer = -1L

  def handle(event: AnyRef): Unit = event match
    case chunk: Buffer => arrived(chunk)
    case _: HttpClosedException => failed(RequestBodyException(Refusals.BodyCutShort))
    // Over HTTP/2 the stream is failing: Netty's codec resets it, with its own code, once Vert.x has told the request
    case _: Throwable if Responder.http2(request) => failed(RequestBodyException(Refusals.BodyCutShort))
    // Vert.x reports a broken chunked framing here, then closes the connection: the refusal, which replaces whatever
    // the logic answers, is sent now rather than once the logic is done, which may be after the close.
    case _: Throwable =>
      val refusal = Refusals.InvalidBodyFraming
      failed(RequestBodyException(refusal))
      val problem = options.serverOptions.problemRenderer(refusal.problem)
      responder.write(request, problem, close = false, this)
    case _ => completed()

  // The body-read deadline, while a pull waits for the client.
  private def watch(nanos: Long): Unit =
    val vertx = Vertx.currentContext.owner
    timers = vertx
    timer = vertx.setTimer(math.max(1L, nanos / 1000000L), _ => check())

  private def check(): Unit =
    timer = -1L
    val since = waitingSince
    if !isOver && since != 0L then
      val left = since + timeoutNanos - System.nanoTime()
      if left <= 0 then
        failed(RequestBodyException(Refusals.bodyTimeout(options.bodyReadTimeout)))
      else watch(left)
