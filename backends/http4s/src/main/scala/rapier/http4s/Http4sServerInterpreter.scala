package rapier.http4s

import cats.data.{Kleisli, OptionT}
import cats.effect.Async
import org.http4s.server.websocket.WebSocketBuilder2
import org.http4s.{Header, Headers, HttpApp, HttpRoutes, HttpVersion, Request, Response}
import org.typelevel.ci.CIString
import cats.effect.std.Queue
import rapier.cats.{Fs2WebSocket, catsMonad}
import rapier.http4s.internal.{
  Bodies,
  HeadCheck,
  Http4sPipeWebSocket,
  Http4sRequest,
  Http4sWebSocket,
  Responses,
  WebSocketWatches
}
import rapier.server.spi.{
  Admission,
  Completion,
  RefusalMarker,
  RequestBodyException,
  RequestSyntax,
  WebSocketUpgrade,
  WebSocketWatch
}
import rapier.server.{EndpointChain, ServerEndpoint, ServerInterpreter, ServerResponse}

import scala.util.Failure

/**
 * Endpoints as http4s routes, for an application that mounts them beside its own:
 *
 * {{{
 * val rapierRoutes = Http4sServerInterpreter[IO](endpoints).routes
 * val app = (rapierRoutes <+> myRoutes).orNotFound
 * }}}
 *
 * [[routes]] takes the requests one of the endpoints routes (path and method) and lets every other one fall through
 * to the routes after it, its body unread; [[app]] answers every request, with Rapier's 404, 405 and 400 for those no
 * endpoint takes. A taken request's body is read whole, within `maxBodySize` (413 past it) and `bodyReadTimeout`
 * (408), before the logic runs; for an endpoint that streams its body, http4s's own fs2 stream is handed to the
 * endpoint with one stage of Rapier's that watches it (`maxStreamedBodySize`, the read deadline while the logic waits,
 * broken framing), with no conversion. A response body that is an fs2 stream goes back to http4s as that stream.
 *
 * A request that came over an HTTP/1.x connection is first checked for what Ember's lenient parser lets through
 * (`docs/backends.md` §4); requests made in memory are not. [[Http4sServer]] checks more, byte by byte, in front of
 * Ember's parser: what that parser loses (line ends, chunk framing) only it can see.
 */
final class Http4sServerInterpreter[F[_]] private[http4s] (
    endpoints: List[ServerEndpoint[F]],
    options: Http4sServerOptions,
    marker: RefusalMarker | Null,
    watches: WebSocketWatches | Null
)(using F: Async[F]):
  def this(endpoints: List[ServerEndpoint[F]], options: Http4sServerOptions = Http4sServerOptions.default)(using
      F: Async[F]
  ) = this(endpoints, options, null, null)

  private val admission = Admission(options.backend)
  private val interpreter = ServerInterpreter(endpoints, options.serverOptions, admission.budget)
  private val budget = admission.budget
  private val responses = Responses[F]()
  private val fromClient = Bodies.clientsDoing(options.bodyReadTimeout)
  private val webSockets = Http4sWebSocket.Open()
  if watches != null then watches.nn.serve(webSockets)

  /**
   * The requests an endpoint routes; the others fall through, their bodies unread.
   * @throws java.lang.IllegalStateException
   *   if an endpoint is a WebSocket, which needs the server's `WebSocketBuilder2`: see `routes(webSockets)`
   */
  def routes: HttpRoutes[F] = routesWith(withoutWebSockets("routes"))

  /**
   * The requests an endpoint routes, WebSockets upgraded with the server's `webSockets` (Ember's
   * `withHttpWebSocketApp(wsb => ...)` gives it); the others fall through, their bodies unread.
   */
  def routes(webSockets: WebSocketBuilder2[F]): HttpRoutes[F] = routesWith(webSockets)

  /**
   * Every request, answered: those no endpoint takes with Rapier's rejection (404, 405, 400).
   * @throws java.lang.IllegalStateException
   *   if an endpoint is a WebSocket, which needs the server's `WebSocketBuilder2`: see `app(webSockets)`
   */
  def app: HttpApp[F] = appWith(withoutWebSockets("app"))

  /** Every request, answered, WebSockets upgraded with the server's `webSockets`. */
  def app(webSockets: WebSocketBuilder2[F]): HttpApp[F] = appWith(webSockets)

  /** The largest message a WebSocket endpoint takes (0 without one): Ember's frame limit must let it through. */
  def maxWebSocketMessageSize: Int = interpreter.maxWebSocketMessageSize

  /**
   * Closes the open WebSockets with 1001, as a server stops: call it before Ember's release, which waits for their
   * connections to end.
   */
  def closeWebSockets(): Unit = webSockets.closeAll()

  private def withoutWebSockets(what: String): Null =
    if interpreter.servesWebSockets then
      throw IllegalStateException(
        s"Some endpoint is a WebSocket, which needs the server's WebSocketBuilder2: use $what(webSockets) in " +
          s"EmberServerBuilder's withHttpWebSocketApp(webSockets => ...)"
      )
    null

  private def routesWith(builder: WebSocketBuilder2[F] | Null): HttpRoutes[F] = Kleisli { (request: Request[F]) =>
    val view = Http4sRequest(request)
    interpreter.routeOrNull(view) match
      case null => OptionT.none[F, Response[F]]
      case chain: EndpointChain[F] =>
        view.webSockets = builder
        OptionT.liftF(serve(view, chain))
  }

  private def appWith(builder: WebSocketBuilder2[F] | Null): HttpApp[F] = Kleisli { (request: Request[F]) =>
    val view = Http4sRequest(request)
    view.webSockets = builder
    serve(view, interpreter.routeOrNull(view))
  }

  /** Bytes of request bodies read whole and held until their requests are answered. */
  def bodyBytesHeld: Long = budget.held

  private def serve(view: Http4sRequest[F], chain: EndpointChain[F] | Null): F[Response[F]] =
    val refused =
      HeadCheck.problem(view.request, view.uri, options.maxInitialLineLength, options.maxHeaderSize, marker)
    if refused != null then refuse(view, refused.nn, bodyUnread = true)
    else
      val http10 = view.request.httpVersion == HttpVersion.`HTTP/1.0`
      val expect = view.headerOrNull("Expect")
      // RFC 9113 §8.1.1: an HTTP/2 body may come without a content-length, ended by its stream's end; Ember's
      // request doesn't tell whether any comes, so an endpoint that reads a body waits for it
      val unsized = view.lengthUnknown ||
        view.request.httpVersion == HttpVersion.`HTTP/2` && view.declaredLength < 0 && chain != null &&
        chain.nn.readsBody
      // Ember stops taking requests as it shuts down: none is seen draining
      admission.decide(chain, view.declaredLength, unsized, expect, http10, draining = false) match
        case refusal: RequestSyntax.Invalid => refuse(view, refusal, bodyUnread = true)
        // A rejection reads no body: Ember drains what is left before the connection's next request
        case _ if chain == null => answer(view, interpreter.serve(view, null), closes = false)
        case Admission.NoBody =>
          view.body = Array.emptyByteArray
          answer(view, interpreter.serve(view, chain), closes = false)
        case streamed: Admission.Streamed => stream(view, chain.nn, streamed.limit)
        case read: Admission.ReadFirst => readFirst(view, chain.nn, read.limit)

  /** The response to `answered`, or a bare 500 if the interpreter failed to produce one. */
  private def answer(view: Http4sRequest[F], answered: F[ServerResponse], closes: Boolean): F[Response[F]] =
    F.flatMap(orServerError(view, answered)) { r =>
      if r.webSocket != null then upgrade(view, r) else responses.of(view, r, closes)
    }

  /**
   * A WebSocket's 101, as Ember writes it (with the endpoint's other headers beside its own); the connection is then
   * the [[Http4sPipeWebSocket]]'s, which runs an fs2 pipe in Ember's own streams, or, for the JDK's publishers, the
   * [[Http4sWebSocket]]'s.
   */
  private def upgrade(view: Http4sRequest[F], r: ServerResponse): F[Response[F]] =
    val builder = view.webSockets.nn
    val others = List.newBuilder[Header.Raw]
    var i = 0
    while i < r.headerCount do
      if !WebSocketUpgrade.isHandshakeHeader(r.headerName(i)) then
        others += Header.Raw(CIString(r.headerName(i)), r.headerValue(i))
      i += 1
    // Fragments come as they are: the socket joins them, within the endpoint's limit, its UTF-8 checked as they come
    val ember = builder.withHeaders(Headers(others.result())).withDefragment(false)
    val upgrade = r.webSocket.nn
    // Behind Rapier's own server, the connection watches the client's frames from the 101 on
    def watched(socket: Http4sWebSocket.Stoppable): Unit =
      if watches != null then
        view.request.remote.foreach { client =>
          val output = upgrade.output
          watches.nn.expect(client, WebSocketWatch(output.in.text, output.maxMessageSize), socket)
        }
    val pipe = Fs2WebSocket.takeOver[F](upgrade.relay)
    if pipe != null then
      F.flatMap(F.product(Queue.bounded[F, Any](1), Queue.bounded[F, Unit](1))) { (inbox, asks) =>
        val socket = Http4sPipeWebSocket[F](upgrade.output, pipe, inbox, asks, webSockets)
        watched(socket)
        ember.build(socket.send, socket.receive)
      }
    else
      F.flatMap(F.executionContext) { context =>
        val socket = Http4sWebSocket[F](upgrade, context, webSockets)
        watched(socket)
        ember.build(socket.send, socket.receive)
      }

  /** `answered`, or a bare 500 (its cause logged) if the interpreter failed to produce a response. */
  // Cancelled (Ember's stop), the request's hooks run, as a runner runs them: what the interpreter must let go of
  private def orServerError(view: Http4sRequest[F], answered: F[ServerResponse]): F[ServerResponse] =
    F.onCancel(F.handleError(answered)(e => Completion.responseOf(Failure(e))), F.delay(view.cancelled()))

  /**
   * The body read whole, within `maxBodySize` and `bodyReadTimeout`, then the logic; a body that can't be read is
   * refused (413, 400, 408), and the connection closes.
   */
  private def readFirst(view: Http4sRequest[F], chain: EndpointChain[F], limit: Long): F[Response[F]] =
    val reading = Bodies.Reading(view, limit, options.bodyReadTimeout, budget)
    F.flatMap(F.attempt(reading.bytes(fromClient))) {
      case Left(client: RequestBodyException) =>
        // What the client still sends of a chunked body refused midway is read, and dropped, for a while after the
        // answer
        val rest = reading.leftover
        if rest != null then view.drain = Bodies.linger(rest.nn)
        refuse(view, client.refusal, bodyUnread = false)
      case Left(e) => answer(view, F.raiseError(e), closes = true)
      case Right(bytes) =>
        view.body = bytes
        answer(view, F.guarantee(interpreter.serve(view, chain), F.delay(budget.give(bytes.length))), false)
    }

  /**
   * The body handed over as a stream, within `maxStreamedBodySize`, timed while the logic waits for it: as http4s's
   * own stream to an fs2 reader, pulled chunk by chunk by any other. A body that could not be read answers the request
   * with its refusal whatever the logic answered; one the logic left unread closes the connection. Past the body
   * deadline, a pulling reader's pull fails with the 408, and an fs2 reader's logic is cancelled (see
   * [[Bodies.Watched.timed]]).
   */
  private def stream(view: Http4sRequest[F], chain: EndpointChain[F], limit: Long): F[Response[F]] =
    val body = Bodies.Watched(view, limit, options.bodyReadTimeout, fromClient)
    view.source = body.source
    F.flatMap(F.start(body.source.run)) { reader =>
      val answering = body.timed(reader, interpreter.serve(view, chain), refusal(body.refusal.nn))
      F.flatMap(orServerError(view, answering)) { r =>
        val refused = body.refusal
        if refused != null then
          // What the client still sends of a body refused past the limit is read and dropped, for a while
          view.drain = body.drain(reader)
          refuse(view, refused.nn, bodyUnread = false)
        else
          // What the logic left unread is drained after the response: so that the connection can go on when nothing
          // read it, and so that its close doesn't reset it under the response otherwise
          if view.hasBody then view.drain = body.drain(reader)
          responses.of(view, r, closes = body.readInPart)
      }
    }

  /** A refusal, after which the connection closes; a body nothing has read yet is drained after it. */
  private def refuse(view: Http4sRequest[F], reason: RequestSyntax.Invalid, bodyUnread: Boolean): F[Response[F]] =
    if bodyUnread && view.hasBody then view.drain = Bodies.linger(view.request.body)
    responses.of(view, refusal(reason), closes = true)

  private def refusal(reason: RequestSyntax.Invalid): ServerResponse =
    options.serverOptions.problemRenderer(reason.problem)
