package rapier.vertx.internal

import io.netty.buffer.Unpooled
import io.netty.channel.socket.DuplexChannel
import io.vertx.core.buffer.Buffer
import io.vertx.core.http.{HttpMethod, HttpServerRequest, HttpVersion}
import io.vertx.core.internal.buffer.BufferInternal
import io.vertx.core.{Handler, Vertx}
import io.vertx.ext.web.RoutingContext
import org.slf4j.LoggerFactory
import rapier.nettyhttp.InvalidRequest
import rapier.server.spi.{Completion, EventLoop, Refusals, RequestSyntax, ResponseRules}
import rapier.model.StatusCode
// An endpoint's chain, as the interpreter hands it out: Handler is Vert.x's word here.
import rapier.server.{Handler as Chain, Problem, ServerInterpreter, ServerResponse}
import rapier.vertx.VertxServerOptions

import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeUnit.NANOSECONDS
import io.netty.util.concurrent.ScheduledFuture
import scala.concurrent.Future

/**
 * Serves the requests of a Vert.x HTTP server, or those a router hands to Rapier's mount: checks what Vert.x's parser
 * lets through, reads the body once into an array, hands the request to the interpreter and writes its response.
 *
 * Vert.x answers a connection's pipelined requests in order by itself: it hands over the next request only once the
 * response to the previous one has ended.
 */
private[vertx] final class RequestHandler(
    interpreter: ServerInterpreter[Future],
    options: VertxServerOptions,
    connections: Connections
) extends Handler[HttpServerRequest]:
  import RequestHandler.*

  /**
   * A request Vert.x's decoder failed, handed over by the server's invalid-request handler: one Rapier's strict
   * decoder refused ([[StrictRequestDecoder]]) is answered as Rapier's Netty backend answers it; anything else as
   * Vert.x does.
   */
  val invalid: Handler[HttpServerRequest] = request =>
    request.decoderResult.cause match
      case invalid: InvalidRequest => refuse(request, invalid.problem)
      case _ => HttpServerRequest.DEFAULT_INVALID_REQUEST_HANDLER.handle(request)

  /** A request of the server's own: every one is served, by an endpoint or with a rejection (404, 405). */
  def handle(request: HttpServerRequest): Unit =
    if connections.isRefused(request.connection) then Connections.close(request.connection)
    else serve(request, VertxRequest(request), interpreter, null)

  /**
   * A request a router handed over: served when an endpoint takes its method and path, passed on to the router's next
   * route otherwise, its body untouched. A body that a vertx-web `BodyHandler` before the mount already read is used
   * as it is.
   */
  def route(context: RoutingContext): Unit =
    val request = context.request
    val view = VertxRequest(request)
    val endpoint = interpreter.routeOrNull(view)
    if endpoint == null then context.next()
    else if connections.isRefused(request.connection) then Connections.close(request.connection)
    else serve(request, view, endpoint.nn, context)

  private def serve(
      request: HttpServerRequest,
      view: VertxRequest,
      handler: Chain[Future],
      context: RoutingContext | Null
  ): Unit =
    val problem = syntaxProblem(request, view)
    if problem != null then refuse(request, problem.nn)
    else if connections.draining then refuse(request, Refusals.ShuttingDown)
    else
      val length =
        val header = view.contentLength
        if header == null then -1L
        else
          try header.trim.toLong
          catch case _: NumberFormatException => -2L
      val chunked = view.transferEncoding
      val expect = view.expect
      val http10 = request.version == HttpVersion.HTTP_1_0
      if length == -2L then refuse(request, Refusals.InvalidContentLength)
      else if length > options.maxBodySize then
        // Answered before the body is read, and without `100 Continue`: the client need not send it at all.
        refuse(request, Refusals.bodyTooLarge(options.maxBodySize))
      else if RequestSyntax.unsupportedExpectation(expect, http10) then refuse(request, Refusals.UnsupportedExpectation)
      else if length <= 0 && !chunked then
        // A route before a mount may have paused the request: its end must still come through.
        if context != null then request.resume()
        dispatch(request, view, handler)
      else if context != null && context.body.available then readBefore(request, view, handler, context.body.buffer)
      else if request.isEnded then
        // Read by a route before the mount, and kept nowhere Rapier can find it: the application's mistake.
        log.error(s"The body of ${request.method} ${request.path} was read before Rapier's route; put no handler " +
          "that consumes bodies (other than vertx-web's BodyHandler) before it")
        val problem = Problem(StatusCode.InternalServerError, "The request's body could not be read")
        write(request, options.serverOptions.problemRenderer(problem), close = false)
      else
        if RequestSyntax.expectsContinue(expect, http10) then request.response.writeContinue()
        BodyReader(request, length, view, handler, resume = context != null)

  /** A body a vertx-web `BodyHandler` read: within Rapier's limit, it is served as it is. */
  private def readBefore(
      request: HttpServerRequest,
      view: VertxRequest,
      handler: Chain[Future],
      buffer: Buffer | Null
  ): Unit =
    val n = if buffer == null then 0 else buffer.nn.length
    if n > options.maxBodySize then refuse(request, Refusals.bodyTooLarge(options.maxBodySize))
    else
      if n > 0 then view.body = buffer.nn.getBytes
      dispatch(request, view, handler)

  /**
   * Reads one request's body, once, into an array: sized by Content-Length, or grown as chunks arrive. One object is
   * the request's data, end and exception handler (Vert.x calls them with a buffer, null and a throwable), and the
   * body-read deadline is armed only for a body still incomplete once the current read has been handled: a small body
   * that arrives with its headers costs no timer.
   */
  private final class BodyReader(
      request: HttpServerRequest,
      length: Long,
      view: VertxRequest,
      handler: Chain[Future],
      resume: Boolean
  ) extends Handler[AnyRef],
        Runnable:
    private var array = new Array[Byte](if length > 0 then length.toInt else 1024)
    connections.bodyBytes.add(array.length)
    private var filled = 0
    private var done = false
    private var timer: ScheduledFuture[?] | Null = null
    private val channel = Connections.channel(request.connection)

    // One handler for three event types: Handler is invariant in Java, erased at run time.
    request.handler(this.asInstanceOf[Handler[Buffer]])
    request.exceptionHandler(this.asInstanceOf[Handler[Throwable]])
    request.endHandler(this.asInstanceOf[Handler[Void]])
    // A route before a mount may have paused the request while it did its own work.
    if resume then request.resume()
    private var vertxTimer = -1L
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
          refuse(request, Refusals.InvalidBodyFraming)
      case _ =>
        if !done then
          finish()
          view.body = body
          dispatch(request, view, handler)

    private def onChunk(chunk: Buffer): Unit =
      if !done then
        val n = chunk.length
        if filled.toLong + n > options.maxBodySize then
          finish()
          refuse(request, Refusals.bodyTooLarge(options.maxBodySize))
        else if length > 0 && filled + n > array.length then
          finish()
          refuse(request, Refusals.BodyLongerThanLength)
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
        refuse(request, Refusals.bodyTimeout(options.bodyReadTimeout))

    private def finish(): Unit =
      done = true
      connections.bodyBytes.add(-array.length)
      if timer != null then timer.nn.cancel(false)
      if vertxTimer >= 0 then Vertx.currentContext.owner.cancelTimer(vertxTimer)

    private def body: Array[Byte] = if filled == array.length then array else java.util.Arrays.copyOf(array, filled)

  private def dispatch(request: HttpServerRequest, view: VertxRequest, handler: Chain[Future]): Unit =
    val result = Completion.serve(handler, view)
    val now = Completion.nowOrNull(result)
    if now != null then write(request, now.nn, close = false)
    // Completed elsewhere: back on the request's context, which owns the connection.
    else Completion.whenComplete(result, ContextLoop(Vertx.currentContext))(write(request, _, close = false))

  /** Answers a request that can't be served, then closes the connection: what follows on it can't be trusted. */
  private def refuse(request: HttpServerRequest, reason: RequestSyntax.Invalid): Unit =
    connections.refuse(request.connection)
    write(request, options.serverOptions.problemRenderer(Problem(reason.status, reason.message)), close = true)

  private def write(request: HttpServerRequest, r: ServerResponse, close: Boolean): Unit =
    val response = request.response
    if !response.ended && !response.closed then
      response.setStatusCode(r.status)
      val headers = response.headers
      var i = 0
      while i < r.headerCount do
        headers.add(r.headerName(i), r.headerValue(i))
        i += 1
      val closing = close || connections.draining
      if closing then headers.set("Connection", "close")
      val bytes = r.body
      val length = if bytes == null then 0 else bytes.nn.length
      // Content-Length from the body, also for HEAD, whose body is not sent.
      val status = r.status
      if ResponseRules.hasContentLength(status) then headers.set("Content-Length", Integer.toString(length))
      else headers.remove("Content-Length")
      val ended =
        if length == 0 || request.method == HttpMethod.HEAD then response.end()
        else response.end(BufferInternal.buffer(Unpooled.wrappedBuffer(bytes.nn)))
      if close then ended.onComplete(_ => linger(request))

  /**
   * Closes after a refusal without losing the answer: a client still sending its body would otherwise have the
   * connection reset under it, and with it the response it has not read. The output is shut down at once (the client
   * reads the answer, then the end of the stream), and what still arrives is discarded until the client closes, or for
   * [[Refusals.LingerMillis]] at most.
   */
  private def linger(request: HttpServerRequest): Unit =
    Connections.channel(request.connection) match
      case duplex: DuplexChannel if duplex.isActive =>
        duplex.shutdownOutput()
        if !request.isEnded then
          request.handler(_ => ())
          request.resume()
        duplex.eventLoop.schedule((() => duplex.close()): Runnable, Refusals.LingerMillis, TimeUnit.MILLISECONDS)
      case _ => Connections.close(request.connection)

private[vertx] object RequestHandler:
  private val log = LoggerFactory.getLogger(classOf[RequestHandler])

  /** A Vert.x context as the loop a response is written on; no context (a caller outside Vert.x) runs tasks at once. */
  private final class ContextLoop(context: io.vertx.core.Context | Null) extends EventLoop:
    def inLoop: Boolean = context == null || Vertx.currentContext == context
    def execute(task: Runnable): Unit = context.nn.runOnContext(_ => task.run())

  /**
   * What Vert.x's parser lets through that RFC 9112 refuses, as far as a parsed request still shows it. Reads the
   * head's framing fields into `view` on the way.
   */
  def syntaxProblem(request: HttpServerRequest, view: VertxRequest): RequestSyntax.Invalid | Null =
    val method = RequestSyntax.method(request.method.name)
    if method != null then method
    else
      val target = RequestSyntax.target(request.uri)
      if target != null then target
      else
        view.readHead()
        val codings =
          if view.transferEncoding then request.headers.getAll("Transfer-Encoding")
          else java.util.Collections.emptyList[String]()
        RequestSyntax.head(view.hosts, view.host, request.version == HttpVersion.HTTP_1_1, codings)
