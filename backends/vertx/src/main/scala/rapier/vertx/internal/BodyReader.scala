package rapier.vertx.internal

import io.netty.util.concurrent.ScheduledFuture
import io.vertx.core.buffer.Buffer
import io.vertx.core.http.HttpServerRequest
import io.vertx.core.{Handler, Vertx}
import rapier.server.spi.{Refusals, RequestSyntax}
import rapier.vertx.VertxServerOptions

import java.util.concurrent.TimeUnit.NANOSECONDS

/**
 * Reads one request's body, once, into an array: sized by Content-Length, or grown as chunks arrive, within
 * `maxBodySize`. One object is the request's data, end and exception handler (Vert.x calls them with a buffer, null and
 * a throwable), and the body-read deadline is armed only for a body still incomplete once the current read has been
 * handled: a small body that arrives with its headers costs no timer.
 *
 * What the body is for is the subclass's: [[read]] gets it whole, [[refused]] the reason it could not be read (too
 * large, longer than its Content-Length, broken framing, too slow); exactly one of them is called, once.
 */
private[vertx] abstract class BodyReader(
    request: HttpServerRequest,
    length: Long,
    options: VertxServerOptions,
    connections: Connections
) extends Handler[AnyRef],
      Runnable:
  private var array = new Array[Byte](if length > 0 then length.toInt else 1024)
  connections.bodyBytes.add(array.length)
  private var filled = 0
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
  def begin(resume: Boolean): Unit =
    // One handler for three event types: Handler is invariant in Java, erased at run time.
    request.handler(this.asInstanceOf[Handler[Buffer]])
    request.exceptionHandler(this.asInstanceOf[Handler[Throwable]])
    request.endHandler(this.asInstanceOf[Handler[Void]])
    if resume then request.resume()
    if options.bodyReadTimeout.isFinite then
      if channel != null then channel.nn.eventLoop.execute(this)
      else // Not a connection Vert.x shows the channel of: a Vert.x timer, at once.
        vertxTimer = Vertx.currentContext.owner.setTimer(options.bodyReadTimeout.toMillis, _ => timeout())

  /** After the read that brought the headers: arms the deadline if the body is still to come. */
  def run(): Unit =
    if !done then
      timer = channel.nn.eventLoop.schedule((() => timeout()): Runnable, options.bodyReadTimeout.toNanos, NANOSECONDS)

  def handle(event: AnyRef): Unit = event match
    case chunk: Buffer => onChunk(chunk)
    // Vert.x reports a broken chunked framing here, then closes.
    case _: Throwable =>
      if !done then
        finish()
        refused(Refusals.InvalidBodyFraming)
    case _ =>
      if !done then
        finish()
        read(body)

  private def onChunk(chunk: Buffer): Unit =
    if !done then
      val n = chunk.length
      if filled.toLong + n > options.maxBodySize then
        finish()
        refused(Refusals.bodyTooLarge(options.maxBodySize))
      else if length > 0 && filled + n > array.length then
        finish()
        refused(Refusals.BodyLongerThanLength)
      else
        if filled + n > array.length then
          val grown =
            java.util.Arrays.copyOf(array, math.max(array.length * 2, filled + n).min(options.maxBodySize.toInt))
          connections.bodyBytes.add(grown.length - array.length)
          array = grown
        chunk.getBytes(0, n, array, filled)
        filled += n

  private def timeout(): Unit =
    if !done then
      finish()
      refused(Refusals.bodyTimeout(options.bodyReadTimeout))

  private def finish(): Unit =
    done = true
    connections.bodyBytes.add(-array.length)
    if timer != null then timer.nn.cancel(false)
    if vertxTimer >= 0 then Vertx.currentContext.owner.cancelTimer(vertxTimer)

  private def body: Array[Byte] = if filled == array.length then array else java.util.Arrays.copyOf(array, filled)
