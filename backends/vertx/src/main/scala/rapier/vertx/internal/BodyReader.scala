package rapier.vertx.internal

import io.netty.util.concurrent.ScheduledFuture
import io.vertx.core.buffer.Buffer
import io.vertx.core.http.HttpServerRequest
import io.vertx.core.{Handler, Vertx}
import rapier.server.spi.{BodyArray, Refusals, RequestSyntax}
import rapier.vertx.VertxServerOptions

import java.util.concurrent.TimeUnit.NANOSECONDS

/**
 * Reads one request's body, once, as a [[BodyArray]] (grown as its chunks arrive, within `maxBodySize` and the server's
 * budget), counted in the budget until it is read. One object is the body, the request's data,
 * end and exception handler (Vert.x calls them with a buffer, null and a throwable), and the body-read deadline is
 * armed only for a body still incomplete once the current read has been handled: a small body that arrives with its
 * headers costs no timer.
 *
 * What the body is for is the subclass's: [[read]] gets it whole, [[refused]] the reason it could not be read (too
 * large, longer than its Content-Length, broken framing, too slow); exactly one of them is called, once.
 */
private[vertx] abstract class BodyReader(
    request: HttpServerRequest,
    length: Long,
    options: VertxServerOptions,
    connections: Connections
) extends BodyArray(options.maxBodySize, connections.bodies),
      Handler[AnyRef],
      Runnable:
  private var done = false
  private var timer: ScheduledFuture[?] | Null = null
  private var vertxTimer = -1L
  private val channel = Connections.channel(request.connection)

  /** The body, read whole. */
  protected def read(body: Array[Byte]): Unit

  /** The body could not be read: the request is to be refused for `reason`. */
  protected def refused(reason: RequestSyntax.Invalid): Unit

  /**
   * Starts reading; `resume` when a route before a mount may have paused the request while it did its own work. Apart
   * from the constructor, so that a subclass is whole before Vert.x calls it back.
   */
  def start(resume: Boolean): Unit =
    begin(if length > 0 then length else -1L)
    // One handler for three event types: Handler is invariant in Java, erased at run time.
    request.handler(this.asInstanceOf[Handler[Buffer]])
    request.exceptionHandler(this.asInstanceOf[Handler[Throwable]])
    request.endHandler(this.asInstanceOf[Handler[Void]])
    if resume then request.resume()
    if rapier.timeoutNanos(options.bodyReadTimeout) > 0 then
      if channel != null then channel.nn.eventLoop.execute(this)
      else // Not a connection Vert.x shows the channel of: a Vert.x timer, at once.
        vertxTimer = Vertx.currentContext.owner.setTimer(options.bodyReadTimeout.toMillis, _ => timeout())

  /** After the read that brought the headers: arms the deadline if the body is still to come. */
  def run(): Unit =
    if !done then
      val nanos = rapier.timeoutNanos(options.bodyReadTimeout)
      timer = channel.nn.eventLoop.schedule((() => timeout()): Runnable, nanos, NANOSECONDS)

  def handle(event: AnyRef): Unit = event match
    case chunk: Buffer => onChunk(chunk)
    // Over HTTP/2, a failing stream, which Netty's codec resets with its own code once Vert.x has told the request
    case _: Throwable if Responder.http2(request) =>
      if !done then
        finish()
        drop()
    // Vert.x reports a broken chunked framing here, then closes.
    case _: Throwable => if !done then refuse(Refusals.InvalidBodyFraming)
    case _ =>
      if !done then
        finish()
        val body = result()
        connections.bodies.give(body.length)
        read(body)

  private def onChunk(chunk: Buffer): Unit =
    if !done then
      val n = chunk.length
      val why = reserve(n)
      if why != null then refuse(why.nn)
      else
        chunk.getBytes(0, n, array, size)
        added(n)

  private def timeout(): Unit = if !done then refuse(Refusals.bodyTimeout(options.bodyReadTimeout))

  private def refuse(reason: RequestSyntax.Invalid): Unit =
    finish()
    drop()
    refused(reason)

  private def finish(): Unit =
    done = true
    if timer != null then timer.nn.cancel(false)
    if vertxTimer >= 0 then Vertx.currentContext.owner.cancelTimer(vertxTimer)
