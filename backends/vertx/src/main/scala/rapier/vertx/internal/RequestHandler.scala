package rapier.vertx.internal

import io.vertx.core.buffer.Buffer
import io.vertx.core.http.{HttpServerRequest, HttpVersion}
import io.vertx.core.{Handler, Vertx}
import io.vertx.ext.web.RoutingContext
import org.slf4j.LoggerFactory
import rapier.model.StatusCode
import rapier.nettyhttp.InvalidRequest
import rapier.server.spi.{Admission, Refusals, RequestSyntax, Runner, Running}
import rapier.server.{EndpointChain, Problem, ServerInterpreter, ServerResponse}
import rapier.vertx.VertxServerOptions

/**
 * Serves the requests of a Vert.x HTTP server, or those a router hands to Rapier's mount: checks what Vert.x's parser
 * lets through, has the body read once into an array ([[BodyReader]]), hands the request to the interpreter and what
 * it answers to the server's [[Responder]]. A body its endpoint reads as a stream is not read first: the request is
 * handed over at once, and its body fetched from Vert.x one chunk per pull ([[VertxBody]]).
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

  private val responder = Responder(options, connections, interpreter.servesWebSockets)

  /**
   * A request Vert.x's decoder failed, handed over by the server's invalid-request handler: answered as Rapier's Netty
   * backend answers it, in the words of Rapier's own checks ([[StrictRequestDecoder]], `InvalidRequest.of`).
   */
  val invalid: Handler[HttpServerRequest] = request =>
    val problem = InvalidRequest.of(request.decoderResult.cause, options.maxInitialLineLength, options.maxHeaderSize)
    responder.refuse(request, problem)

  /** The largest WebSocket message an endpoint takes: Vert.x's frame and message limits must let it through. */
  def maxWebSocketMessageSize: Int = interpreter.maxWebSocketMessageSize

  /**
   * A request of the server's own: every one is served, by an endpoint or with a rejection (404, 405). One that comes
   * while its connection can't take more output waits a turn of the event loop (see [[writableLater]]).
   */
  def handle(request: HttpServerRequest): Unit = handle(request, waited = false)

  private def handle(request: HttpServerRequest, waited: Boolean): Unit =
    connections.serving(request.connection)
    if connections.isRefused(request.connection) then Connections.close(request.connection)
    else if waited || !writableLater(request) then
      val view = VertxRequest(request)
      serve(request, view, interpreter.routeOrNull(view), null)

  /**
   * Whether `request` waits a turn of its event loop, handed back to it: its connection's channel takes no more
   * output. Vert.x hands a pipelined request over once the response before it is written to the channel, and holds
   * writes while it knows the channel unwritable; but through TLS's handler it learns so only in a later turn of the
   * event loop, and meanwhile every pipelined request would be answered into memory. After that turn Vert.x knows.
   * HTTP/2's streams are held by their windows instead, their number by the stream limit.
   */
  private def writableLater(request: HttpServerRequest): Boolean =
    val channel = Connections.channel(request.connection)
    if channel == null || channel.nn.isWritable || Responder.http2(request) then false
    else
      channel.nn.eventLoop.execute(() => handle(request, waited = true))
      true

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
    else serve(request, view, endpoint, context)

  /** Serves a request routed to `chain` (null for none: the rejection), as the server's [[Admission]] decides. */
  private def serve(
      request: HttpServerRequest,
      view: VertxRequest,
      chain: EndpointChain[F] | Null,
      context: RoutingContext | Null
  ): Unit =
    val problem = syntaxProblem(request, view)
    if problem != null then responder.refuse(request, problem.nn)
    else
      val length = Admission.declaredLength(view.contentLength)
      val http10 = request.version == HttpVersion.HTTP_1_0
      connections.admission.decide(
        chain,
        length,
        view.transferEncoding || unsizedHttp2Body(request, view, chain),
        view.expect,
        http10,
        connections.draining
      ) match
        case refusal: RequestSyntax.Invalid => responder.refuse(request, refusal)
        case Admission.NoBody =>
          // A route before a mount may have paused the request: its end must still come through. An upgrade's end is
          // held instead, for Vert.x's handshake to take once the logic has answered ([[upgradeTo]]).
          if responder.upgrading(request) then request.pause()
          else if context != null then request.resume()
          dispatch(request, view, chain, null)
        case _ if context != null && context.body.available =>
          readBefore(request, view, chain, context.body.buffer)
        case streamed: Admission.Streamed if !request.isEnded =>
          val loop = ContextLoop(Vertx.currentContext)
          val source =
            VertxBody(request, length, streamed.limit, streamed.continues, loop, options, connections, responder)
          view.source = source
          dispatch(request, view, chain, source)
        case _ if request.isEnded =>
          // Read by a route before the mount, and kept nowhere Rapier can find it: the application's mistake.
          log.error(s"The body of ${request.method} ${request.path} was read before Rapier's route; put no handler " +
            "that consumes bodies (other than vertx-web's BodyHandler) before it")
          val problem = Problem(StatusCode.InternalServerError, "The request's body could not be read")
          responder.write(request, options.serverOptions.problemRenderer(problem), close = false)
        case read: Admission.ReadFirst =>
          if read.continues then request.response.writeContinue()
          val reader = new BodyReader(request, length, options, connections):
            protected def read(body: Array[Byte]): Unit =
              view.body = body
              dispatch(request, view, chain, null)
            protected def refused(reason: RequestSyntax.Invalid): Unit = responder.refuse(request, reason)
          reader.start(resume = context != null)
        case _: Admission.Streamed => () // ended: answered above

  // RFC 9113 §8.1.1: an HTTP/2 request may carry DATA without a content-length, ended by its stream's end, read as a
  // chunked HTTP/1.1 body is. Vert.x tells no stream's end before the handler runs, so only an endpoint that reads a
  // body waits for it; others are served at once, as a GET should be.
  private def unsizedHttp2Body(request: HttpServerRequest, view: VertxRequest, chain: EndpointChain[F] | Null) =
    view.contentLength == null && request.version == HttpVersion.HTTP_2 && !request.isEnded && chain != null &&
      chain.nn.readsBody

  /** A body a vertx-web `BodyHandler` read: within Rapier's limit, it is served as it is. */
  private def readBefore(
      request: HttpServerRequest,
      view: VertxRequest,
      chain: EndpointChain[F] | Null,
      buffer: Buffer | Null
  ): Unit =
    val n = if buffer == null then 0 else buffer.nn.length
    if n > options.maxBodySize then responder.refuse(request, Refusals.bodyTooLarge(options.maxBodySize))
    else
      if n > 0 then view.body = buffer.nn.getBytes
      dispatch(request, view, chain, null)

  /** Hands a request to the interpreter with the chain routing found (null: the rejection), and writes its answer. */
  private def dispatch(
      request: HttpServerRequest,
      view: VertxRequest,
      chain: EndpointChain[F] | Null,
      source: VertxBody | Null
  ): Unit =
    runner.start(interpreter, view, chain) match
      case now: ServerResponse =>
        if source == null then responder.write(request, now, close = false)
        else respondStreamed(request, source.nn, now)
      case later: Running =>
        // Its client gone, what the logic would answer goes nowhere: stopped, if it can be
        if later.cancellable then request.response.closeHandler(_ => later.cancel())
        // Completed elsewhere: back on the request's context, which owns the connection.
        val loop = if source != null then source.loop else ContextLoop(Vertx.currentContext)
        later.onComplete(loop) { r =>
          if source == null then responder.write(request, r, close = false) else respondStreamed(request, source.nn, r)
        }

  /**
   * The answer to a request whose body was streamed: what its logic says, unless the body could not be read (then
   * 413, 400 or 408). Unless the body has arrived whole once the response is sent, the connection closes after it,
   * as the client may still be sending; what the reader still holds is let go then.
   */
  private def respondStreamed(request: HttpServerRequest, source: VertxBody, response: ServerResponse): Unit =
    responder.write(request, source.answer(response, options.serverOptions.problemRenderer), close = false, source)

private[vertx] object RequestHandler:
  private val log = LoggerFactory.getLogger(classOf[RequestHandler[?]])

  /**
   * What Vert.x's parser lets through that RFC 9112 refuses, as far as a parsed request still shows it. Reads the
   * head's framing fields into `view` on the way.
   */
  def syntaxProblem(request: HttpServerRequest, view: VertxRequest): RequestSyntax.Invalid | Null =
    val method = RequestSyntax.method(request.method.name)
    if method != null then method
    else
      val target = RequestSyntax.target(request.uri, request.method.name)
      if target != null then target
      else if Responder.http2(request) then http2Problem(request, view)
      else
        view.readHead()
        val codings =
          if view.transferEncoding then request.headers.getAll("Transfer-Encoding")
          else java.util.Collections.emptyList[String]()
        RequestSyntax.head(view.hosts, view.host, request.version == HttpVersion.HTTP_1_1, codings)

  /**
   * An HTTP/2 request's Host against HTTP's rules, as an HTTP/1.1 head's. The fields themselves need no second look:
   * Netty's codec refuses a name that is not a lowercase token and a value with a control character, Vert.x an
   * `:authority` it can't parse or a Host beside it that differs (the kit's raw-frame cases see each reset). No Host is
   * needed where the `:authority` names the origin (RFC 9113 §8.3.1): it stands for Host then ([[VertxRequest]]).
   */
  private def http2Problem(request: HttpServerRequest, view: VertxRequest): RequestSyntax.Invalid | Null =
    view.readHead()
    RequestSyntax.head(view.hosts, view.host, http11 = false, java.util.Collections.emptyList[String]())
