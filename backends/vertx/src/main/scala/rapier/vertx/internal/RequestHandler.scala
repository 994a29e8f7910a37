package rapier.vertx.internal

import io.netty.buffer.Unpooled
import io.netty.channel.socket.DuplexChannel
import io.netty.util.AsciiString
import io.vertx.core.buffer.Buffer
import io.vertx.core.http.{HttpClosedException, HttpMethod, HttpServerRequest, HttpServerResponse, HttpVersion}
import io.vertx.core.internal.buffer.BufferInternal
import io.vertx.core.{Handler, Vertx}
import io.vertx.ext.web.RoutingContext
import org.slf4j.LoggerFactory
import rapier.nettyhttp.InvalidRequest
import rapier.server.spi.{ConnectionBody, EventLoop, Refusals, RequestBodyException, RequestSyntax}
import rapier.server.spi.{ResponseRules, ResponseStream, Runner, Running, WebSocketUpgrade}
import rapier.model.{HeaderNames, StatusCode}
import rapier.server.{EndpointChain, Problem, ServerInterpreter, ServerResponse}
import rapier.vertx.VertxServerOptions

import java.nio.ByteBuffer
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeUnit.NANOSECONDS
import io.netty.util.concurrent.ScheduledFuture

/**
 * Serves the requests of a Vert.x HTTP server, or those a router hands to Rapier's mount: checks what Vert.x's parser
 * lets through, reads the body once into an array, hands the request to the interpreter and writes its response. A
 * body its endpoint reads as a stream is not read first: the request is handed over at once, and its body fetched
 * from Vert.x one chunk per pull ([[VertxBody]]).
 *
 * Vert.x answers a connection's pipelined requests in order by itself: it hands over the next request only once the
 * response to the previous one has ended.
 */
private[vertx] final class RequestHandler[F[_]](
    interpreter: ServerInterpreter[F],
    runner: Runner[F],
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

  /** The largest WebSocket message an endpoint takes: Vert.x's frame and message limits must let it through. */
  def maxWebSocketMessageSize: Int = interpreter.maxWebSocketMessageSize

  // Routing at the head tells whether the endpoint streams its body: done only when some endpoint does.
  private val routesAtHead = interpreter.streamsBodies

  /** A request of the server's own: every one is served, by an endpoint or with a rejection (404, 405). */
  def handle(request: HttpServerRequest): Unit =
    connections.serving(request.connection)
    if connections.isRefused(request.connection) then Connections.close(request.connection)
    else
      val view = VertxRequest(request)
      if routesAtHead then serve(request, view, interpreter.routeOrNull(view), routed = true, null)
      else serve(request, view, null, routed = false, null)

  /**
   * A request a router handed over: served when an endpoint takes its method and path, passed on to the router's next
   * route otherwise, its body untouched. A body that a vertx-web `BodyHandler` before the mount already read is used
   * as it is.
   */
  def route(context: RoutingContext): Unit =
    val request = context.request
    val view = VertxRequest(request)
    val endpoint = interpreter.routeOrNull(view)
    connections.serving(request.connection)
    if endpoint == null then context.next()
    else if connections.isRefused(request.connection) then Connections.close(request.connection)
    else serve(request, view, endpoint, routed = true, context)

  /**
   * Serves a request: `routed` when routing ran at its head, `chain` then being what it found (null for none: the
   * rejection); otherwise the interpreter routes it as it serves it.
   */
  private def serve(
      request: HttpServerRequest,
      view: VertxRequest,
      chain: EndpointChain[F] | Null,
      routed: Boolean,
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
      val streams = chain != null && chain.nn.streamsBody
      val limit = if streams then options.maxStreamedBodySize else options.maxBodySize
      if length == -2L then refuse(request, Refusals.InvalidContentLength)
      else if length > limit then
        // Answered before the body is read, and without `100 Continue`: the client need not send it at all.
        refuse(request, Refusals.bodyTooLarge(limit))
      else if RequestSyntax.unsupportedExpectation(expect, http10) then refuse(request, Refusals.UnsupportedExpectation)
      else if length <= 0 && !chunked then
        // A route before a mount may have paused the request: its end must still come through. An upgrade's end is
        // held instead, for Vert.x's handshake to take once the logic has answered ([[upgradeTo]]).
        if upgrading(request) then request.pause()
        else if context != null then request.resume()
        dispatch(request, view, chain, routed, null)
      else if context != null && context.body.available then
        readBefore(request, view, chain, routed, context.body.buffer)
      else if streams && !request.isEnded then
        // `100 Continue` waits for the logic's first pull: logic that answers without reading never gets the body.
        val source = VertxBody(
          request,
          length,
          limit,
          RequestSyntax.expectsContinue(expect, http10),
          ContextLoop(Vertx.currentContext)
        )
        view.source = source
        dispatch(request, view, chain, routed, source)
      else if request.isEnded then
        // Read by a route before the mount, and kept nowhere Rapier can find it: the application's mistake.
        log.error(s"The body of ${request.method} ${request.path} was read before Rapier's route; put no handler " +
          "that consumes bodies (other than vertx-web's BodyHandler) before it")
        val problem = Problem(StatusCode.InternalServerError, "The request's body could not be read")
        write(request, options.serverOptions.problemRenderer(problem), close = false)
      else
        if RequestSyntax.expectsContinue(expect, http10) then request.response.writeContinue()
        BodyReader(request, length, view, chain, routed, resume = context != null)

  /** A body a vertx-web `BodyHandler` read: within Rapier's limit, it is served as it is. */
  private def readBefore(
      request: HttpServerRequest,
      view: VertxRequest,
      chain: EndpointChain[F] | Null,
      routed: Boolean,
      buffer: Buffer | Null
  ): Unit =
    val n = if buffer == null then 0 else buffer.nn.length
    if n > options.maxBodySize then refuse(request, Refusals.bodyTooLarge(options.maxBodySize))
    else
      if n > 0 then view.body = buffer.nn.getBytes
      dispatch(request, view, chain, routed, null)

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
      chain: EndpointChain[F] | Null,
      routed: Boolean,
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
          dispatch(request, view, chain, routed, null)

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

  /**
   * Hands a request to the interpreter — routed already when `routed` (`chain` its endpoint, null for the rejection),
   * else routed as it is served — and writes what it answers.
   */
  private def dispatch(
      request: HttpServerRequest,
      view: VertxRequest,
      chain: EndpointChain[F] | Null,
      routed: Boolean,
      source: VertxBody | Null
  ): Unit =
    runner.start(interpreter, view, chain, routed) match
      case now: ServerResponse =>
        if source == null then write(request, now, close = false) else respondStreamed(request, source.nn, now)
      case later: Running =>
        // Its client gone, what the logic would answer goes nowhere: stopped, if it can be
        if later.cancellable then request.response.closeHandler(_ => later.cancel())
        // Completed elsewhere: back on the request's context, which owns the connection.
        val loop = if source != null then source.loop else ContextLoop(Vertx.currentContext)
        later.onComplete(loop) { r =>
          if source == null then write(request, r, close = false) else respondStreamed(request, source.nn, r)
        }

  /**
   * The answer to a request whose body was streamed: what its logic says, unless the body could not be read (then
   * 413, 400 or 408). Unless the body has arrived whole once the response is sent, the connection closes after it,
   * as the client may still be sending; what the reader still holds is let go then.
   */
  private def respondStreamed(request: HttpServerRequest, source: VertxBody, response: ServerResponse): Unit =
    write(request, source.answer(response, options.serverOptions.problemRenderer), close = false, source)

  /**
   * A body streamed to its endpoint: Vert.x's request paused until the first pull, then resumed and paused again as
   * the reader keeps up or falls behind. Vert.x's buffers are the reader's to keep, so there is nothing to release.
   */
  private final class VertxBody(
      request: HttpServerRequest,
      length: Long,
      limit: Long,
      continues: Boolean,
      val loop: ContextLoop
  ) extends ConnectionBody[Buffer](loop, length, limit, connections.bodyBytes),
        Handler[AnyRef]:
    private val timeoutNanos = if options.bodyReadTimeout.isFinite then options.bodyReadTimeout.toNanos else 0L
    private var timer = -1L

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

    def handle(event: AnyRef): Unit = event match
      case chunk: Buffer => arrived(chunk)
      case _: HttpClosedException => failed(RequestBodyException(Refusals.BodyCutShort))
      // Vert.x reports a broken chunked framing here, then closes the connection: the refusal, which replaces whatever
      // the logic answers, is sent now rather than once the logic is done, which may be after the close.
      case _: Throwable =>
        val refusal = Refusals.InvalidBodyFraming
        failed(RequestBodyException(refusal))
        write(request, options.serverOptions.problemRenderer(Problem(refusal.status, refusal.message)), false, this)
      case _ => completed()

    // The body-read deadline, while a pull waits for the client.
    private def watch(nanos: Long): Unit =
      timer = Vertx.currentContext.owner.setTimer(math.max(1L, nanos / 1000000L), _ => check())

    private def check(): Unit =
      timer = -1L
      val since = waitingSince
      if !isOver && since != 0L then
        val left = since + timeoutNanos - System.nanoTime()
        if left <= 0 then
          failed(RequestBodyException(Refusals.bodyTimeout(options.bodyReadTimeout)))
        else watch(left)

  /** Answers a request that can't be served, then closes the connection: what follows on it can't be trusted. */
  private def refuse(request: HttpServerRequest, reason: RequestSyntax.Invalid): Unit =
    connections.refuse(request.connection)
    write(request, options.serverOptions.problemRenderer(Problem(reason.status, reason.message)), close = true)

  /**
   * Writes a response: its body from memory, from a file (Vert.x's `sendFile`, zero-copy), or pulled chunk by chunk
   * ([[ResponseWriter]]). `body` is the request's streamed body, if any: let go once the response is sent, and unless
   * it arrived whole by then, the connection closes, lingering.
   */
  private def write(
      request: HttpServerRequest,
      r: ServerResponse,
      close: Boolean,
      body: VertxBody | Null = null
  ): Unit =
    val response = request.response
    if r.webSocket != null then upgradeTo(request, r)
    else if !response.ended && !response.closed then
      if upgrading(request) then request.resume()
      val closing = close || connections.draining || (body != null && !body.nn.keepsConnection)
      val streamed = r.stream
      val bodyless = request.method == HttpMethod.HEAD || !ResponseRules.hasContentLength(r.status)
      val length: Long =
        if streamed != null then streamed.nn.length else if r.body == null then 0L else r.body.nn.length.toLong
      head(response, r, length, closing)
      streamed match
        case null =>
          val bytes = r.body
          val ended =
            if length == 0 || bodyless then response.end()
            else response.end(BufferInternal.buffer(Unpooled.wrappedBuffer(bytes.nn)))
          finish(request, ended, close, body)
        case file: ResponseStream.File if !bodyless =>
          val sent = response.sendFile(file.path.toString, file.offset, file.length)
          sent.onFailure(e => if !response.headWritten then failedBeforeHead(request, r, e, body))
          sent.onSuccess(_ => finish(request, sent, close, body))
        case chunks: ResponseStream.Chunks if !bodyless =>
          if length < 0 then response.setChunked(true)
          val done = new ResponseWriter.Done:
            def sent(ended: io.vertx.core.Future[Void]): Unit = finish(request, ended, close, body)
            def failedBeforeHead(cause: Throwable): Unit = RequestHandler.this.failedBeforeHead(request, r, cause, body)
          ResponseWriter(response, Vertx.currentContext, chunks, done).begin()
        case other =>
          other.nn.abandon()
          finish(request, response.end(), close, body)

  /** Whether a request may be a WebSocket's upgrade, its end then held until its answer is known. */
  private def upgrading(request: HttpServerRequest): Boolean =
    servesWebSockets && request.headers.contains(HeaderNames.Upgrade)

  private val servesWebSockets = interpreter.servesWebSockets

  /**
   * A WebSocket's 101: Vert.x's handshake writes it, with the endpoint's headers beside its own, and the socket is
   * then the channel of the upgrade's relay ([[VertxWebSocket]]). A connection gone by then abandons the relay.
   */
  private def upgradeTo(request: HttpServerRequest, r: ServerResponse): Unit =
    val upgrade = r.webSocket.nn
    val response = request.response
    if response.ended || response.closed then upgrade.abandon()
    else
      val headers = response.headers
      var i = 0
      while i < r.headerCount do
        if !WebSocketUpgrade.isHandshakeHeader(r.headerName(i)) then headers.add(r.headerName(i), r.headerValue(i))
        i += 1
      val context = Vertx.currentContext
      request.toWebSocket().onComplete { result =>
        if result.succeeded then VertxWebSocket(result.result, upgrade, context, connections).begin()
        else upgrade.abandon()
      }

  /** The status and headers; `length` (≥ 0) as Content-Length where the status allows a body. */
  private def head(response: HttpServerResponse, r: ServerResponse, length: Long, closing: Boolean): Unit =
    response.setStatusCode(r.status)
    val headers = response.headers
    var i = 0
    while i < r.headerCount do
      headers.add(AsciiCache.headers(r.headerName(i)), AsciiCache.headers(r.headerValue(i)))
      i += 1
    if closing then headers.set(RequestHandler.Connection, RequestHandler.Close)
    // Content-Length from the body, also for HEAD, whose body is not sent.
    if ResponseRules.hasContentLength(r.status) && length >= 0 then
      headers.set(RequestHandler.ContentLength, length.toString)
    else headers.remove(RequestHandler.ContentLength)

  /** The response is sent: a streamed request body is let go, and a closing connection lingers, then closes. */
  private def finish(
      request: HttpServerRequest,
      ended: io.vertx.core.Future[Void],
      refused: Boolean,
      body: VertxBody | Null
  ): Unit =
    val unread = body != null && !body.nn.keepsConnection
    if body != null then
      if unread then connections.refuse(request.connection)
      body.nn.discard()
    if refused || unread then ended.onComplete(_ => linger(request))

  /** A body's source failed before anything was sent: the response becomes a 500. */
  private def failedBeforeHead(
      request: HttpServerRequest,
      r: ServerResponse,
      cause: Throwable,
      body: VertxBody | Null
  ) =
    log.error("A response body's source failed before the response started", cause)
    val response = request.response
    response.headers.clear()
    response.setChunked(false)
    val problem = Problem(StatusCode.InternalServerError, "The server failed to produce this response's body.")
    write(request, options.serverOptions.problemRenderer(problem), close = false, body)

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
  private val log = LoggerFactory.getLogger(classOf[RequestHandler[?]])

  // The headers Rapier sets itself, in the case it writes them, as bytes (see `AsciiCache`)
  private val ContentLength = AsciiString.cached("Content-Length")
  private val Connection = AsciiString.cached("Connection")
  private val Close = AsciiString.cached("close")

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
