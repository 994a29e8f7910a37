package rapier.pekko

import org.apache.pekko.http.impl.engine.http2.RapierHttp2
import org.apache.pekko.http.scaladsl.model.{HttpProtocols, HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.server.{Route, RouteResult}
import org.apache.pekko.stream.Materializer
import rapier.pekko.internal.{Bodies, HeadCheck, PekkoRequest, PekkoWebSocket, Responses}
import rapier.server.spi.{Admission, Completion, RefusalMarker, Refusals, RequestBodyException, RequestSyntax}
import rapier.server.{EndpointChain, ServerEndpoint, ServerInterpreter, ServerResponse}

import scala.concurrent.duration.DurationLong
import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success, Try}

/**
 * Endpoints as a pekko-http `Route`, for an application that concatenates it with its own directives:
 *
 * {{{
 * val api = PekkoServerInterpreter(endpoints).route
 * val route = api ~ path("health")(complete("ok"))
 * Http().newServerAt("localhost", 8080).bind(route)
 * }}}
 *
 * [[route]] completes the requests one of the endpoints routes (path and method) and rejects every other one, with no
 * rejection of its own, its body unread: the routes after it are tried, as for any directive. [[handler]] answers
 * every request, with Rapier's 404, 405 and 400 for those no endpoint takes. A taken request's body is read whole,
 * within `maxBodySize` (413 past it) and `bodyReadTimeout` (408), before the logic runs — as it is when pekko-http
 * received it with the head, by pekko-http's `toStrict` otherwise; for an endpoint that streams its body, the entity's
 * stream is pulled as the logic reads it, within `maxStreamedBodySize`, or handed to a [[pekkoSourceBody]] as it is.
 */
final class PekkoServerInterpreter private[pekko] (
    endpoints: List[ServerEndpoint[Future]],
    options: PekkoServerOptions,
    marker: RefusalMarker | Null
):
  def this(endpoints: List[ServerEndpoint[Future]], options: PekkoServerOptions = PekkoServerOptions.default) =
    this(endpoints, options, null)

  private val admission = Admission(options.backend)
  private val interpreter = ServerInterpreter(endpoints, options.serverOptions, admission.budget)
  private val budget = admission.budget
  private val webSockets = PekkoWebSocket.Open()

  /** The requests an endpoint routes; the others are rejected with no rejection, so the next route is tried. */
  val route: Route = ctx =>
    val view = PekkoRequest(ctx.request)
    interpreter.routeOrNull(view) match
      case null => ctx.reject()
      case chain: EndpointChain[Future] =>
        PekkoServerInterpreter.mapNow(serve(view, chain)(using ctx.materializer))(RouteResult.Complete(_))

  /** Every request, answered: those no endpoint takes with Rapier's rejection (404, 405, 400). */
  def handler(using Materializer): HttpRequest => Future[HttpResponse] = request =>
    val view = PekkoRequest(request)
    serve(view, interpreter.routeOrNull(view))

  /** The answer to a request arriving while the server stops: 503, and the connection closes. */
  private[pekko] def busy(): HttpResponse =
    Responses.now(
      PekkoRequest(HttpRequest()),
      options.serverOptions.problemRenderer(Refusals.ShuttingDown.problem),
      true
    )

  /** Bytes of request bodies read whole and held until their requests are answered. */
  def bodyBytesHeld: Long = budget.held

  /**
   * Closes the open WebSockets, as a server stops: with 1011, the only code besides 1000 pekko-http closes with (for
   * the 1001 the other backends send). Done once each has handed its close to pekko-http; call it before the binding's
   * `terminate`, which ends upgraded connections without a close of their own.
   */
  def closeWebSockets(): Future[Unit] = webSockets.closeAll()

  private def serve(view: PekkoRequest, chain: EndpointChain[Future] | Null)(using Materializer): Future[HttpResponse] =
    val refused = HeadCheck.problem(view, options.maxHeaderSize, marker)
    if refused != null then refuse(view, refused.nn)
    else
      val entity = view.request.entity
      val length = entity.contentLengthOption.getOrElse(-1L)
      val chunked = entity.isChunked
      val http10 = view.request.protocol == HttpProtocols.`HTTP/1.0`
      // A stopping PekkoServer answers new requests itself (Connections), and a mounted route's server does: none
      // is seen draining
      admission.decide(chain, length, chunked, view.headerOrNull("Expect"), http10, draining = false) match
        case refusal: RequestSyntax.Invalid => refuse(view, refusal)
        // A rejection reads no body: pekko-http drains what is left before the connection's next request
        case _ if chain == null => answer(view, interpreter.serve(view, null), closes = false)
        case Admission.NoBody =>
          view.body = Array.emptyByteArray
          answer(view, interpreter.serve(view, chain), closes = false)
        case streamed: Admission.Streamed => stream(view, chain.nn, streamed.limit)
        case read: Admission.ReadFirst => readFirst(view, chain.nn, read.limit)

  /** The response to `answered`, or a bare 500 if the interpreter failed to produce one. */
  private def answer(view: PekkoRequest, answered: => Future[ServerResponse], closes: Boolean): Future[HttpResponse] =
    val result = Completion.attempt(answered)
    val now = Completion.nowOrNull(result)
    if now != null then respond(view, now.nn, closes)
    else result.transformWith(t => respond(view, Completion.responseOf(t), closes))(using ExecutionContext.parasitic)

  /** pekko-http's response to `r`: a WebSocket's 101 (the WebSocket counted open), or any other. */
  private def respond(view: PekkoRequest, r: ServerResponse, closes: Boolean): Future[HttpResponse] =
    if r.webSocket != null then Future.successful(Responses.webSocket(view, r, webSockets))
    else Responses.of(view, r, closes)

  /**
   * The body read whole, within `maxBodySize` and `bodyReadTimeout`, then the logic; a body that can't be read is
   * refused (413, 400, 408), and the connection closes.
   */
  private def readFirst(view: PekkoRequest, chain: EndpointChain[Future], limit: Long)(using
      Materializer
  ): Future[HttpResponse] =
    val read = Bodies.read(view.request.entity, limit, options.bodyReadTimeout, budget, Refusals.LingerMillis.millis)
    read.value match
      case Some(bytes) => served(view, chain, bytes)
      case None => read.transformWith(served(view, chain, _))(using ExecutionContext.parasitic)

  private def served(view: PekkoRequest, chain: EndpointChain[Future], read: Try[Array[Byte]]): Future[HttpResponse] =
    read match
      case Success(bytes) =>
        view.body = bytes
        val answered = answer(view, interpreter.serve(view, chain), closes = false)
        answered.onComplete(_ => budget.give(bytes.length))(using ExecutionContext.parasitic)
        answered
      case Failure(still: Bodies.StillSent) => refuse(view, still.refusal, still.dropped)
      case Failure(client: RequestBodyException) => refuse(view, client.refusal)
      case Failure(e) => answer(view, Future.failed(e), closes = true)

  /**
   * The body handed over as a source, within `maxStreamedBodySize`, each pull timed while the logic waits for it. A
   * body that could not be read answers the request with its refusal whatever the logic answered; one the logic had not
   * read to its end when it answered closes the connection.
   */
  private def stream(view: PekkoRequest, chain: EndpointChain[Future], limit: Long)(using
      Materializer
  ): Future[HttpResponse] =
    val entity = view.request.entity
    val body = Bodies.EntitySource(entity, limit, options.bodyReadTimeout, Refusals.LingerMillis.millis)
    view.source = body
    val answered = body.dispatching(Completion.attempt(interpreter.serve(view, chain)))
    answered.transformWith { outcome =>
      val refused = body.refusal
      if refused != null then refuse(view, refused.nn, body.refusalDropped)
      else
        val response = Completion.responseOf(outcome)
        if !Bodies.hasBody(entity) || body.readWhole then Responses.of(view, response, closes = false)
        // Over HTTP/2 the stream is reset with NO_ERROR after the response (RFC 9113 §8.1), which stops the client:
        // nothing to drain first, and the entity's stream cancelled before the response would reset it with CANCEL
        else if RapierHttp2.streamOf(view.request).isDefined then Responses.of(view, response, closes = false)
        else
          // A body not read to its end when the logic answers: what is left is read and dropped first, for a while,
          // as the other backends linger; if it can't be, the connection closes after the response, and says so
          // (pekko-http would close it anyway, without a word, once the entity's stream is cancelled)
          val awaitsContinue = RequestSyntax.expectsContinue(
            view.headerOrNull("Expect"),
            view.request.protocol == HttpProtocols.`HTTP/1.0`
          )
          body
            .drain(Refusals.LingerMillis.millis, unpulled = response.stream == null && !awaitsContinue)
            .flatMap(whole => Responses.of(view, response, closes = !whole))(using ExecutionContext.parasitic)
    }(using ExecutionContext.parasitic)

  /**
   * A refusal, after which the connection closes: once `dropped` completes, when the rest of a refused body is read and
   * dropped meanwhile.
   */
  private def refuse(
      view: PekkoRequest,
      reason: RequestSyntax.Invalid,
      dropped: Future[Unit] = Future.unit
  ): Future[HttpResponse] =
    val problem = options.serverOptions.problemRenderer(reason.problem)
    Future.successful(Responses.closingOnceDropped(Responses.now(view, problem, closes = true), dropped))

private object PekkoServerInterpreter:
  /** `f` mapped, at once when it is complete: the common case of logic that answered at once costs no task. */
  def mapNow[A, B](f: Future[A])(g: A => B): Future[B] = f.value match
    case Some(Success(a)) => Future.successful(g(a))
    case _ => f.map(g)(using ExecutionContext.parasitic)
