package rapier.http4s

import cats.data.{Kleisli, OptionT}
import cats.effect.Async
import org.http4s.{HttpApp, HttpRoutes, HttpVersion, Request, Response}
import rapier.cats.catsMonad
import rapier.http4s.internal.{Bodies, Http4sRequest, Responses}
import rapier.server.spi.{BodyTooLargeException, Completion, Refusals, RequestSyntax}
import rapier.model.StatusCode
import rapier.server.{EndpointChain, Problem, ServerEndpoint, ServerInterpreter, ServerResponse}

import java.util.concurrent.atomic.AtomicLong
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
 * endpoint takes. A taken request's body is read whole, within `maxBodySize` (413 past it), before the logic runs;
 * for an endpoint that streams its body, http4s's own fs2 stream is handed to the endpoint as it is, within
 * `maxStreamedBodySize`. A response body that is an fs2 stream goes back to http4s as that stream.
 */
final class Http4sServerInterpreter[F[_]](
    endpoints: List[ServerEndpoint[F]],
    options: Http4sServerOptions = Http4sServerOptions.default
)(using F: Async[F]):
  private val interpreter = ServerInterpreter(endpoints, options.serverOptions)
  private val held = AtomicLong()
  private val responses = Responses[F](options)

  /** The requests an endpoint routes; the others fall through, their bodies unread. */
  val routes: HttpRoutes[F] = Kleisli { (request: Request[F]) =>
    val view = Http4sRequest(request)
    interpreter.routeOrNull(view) match
      case null => OptionT.none[F, Response[F]]
      case chain: EndpointChain[F] => OptionT.liftF(serve(view, chain))
  }

  /** Every request, answered: those no endpoint takes with Rapier's rejection (404, 405, 400). */
  val app: HttpApp[F] = Kleisli { (request: Request[F]) =>
    val view = Http4sRequest(request)
    serve(view, interpreter.routeOrNull(view))
  }

  /** Bytes of request bodies read whole and held until their requests are answered. */
  def bodyBytesHeld: Long = held.get

  private def serve(view: Http4sRequest[F], chain: EndpointChain[F] | Null): F[Response[F]] =
    val refused = refusalOf(view)
    val answered: F[ServerResponse] =
      if refused != null then F.pure(refused)
      else if chain == null then interpreter.serve(view, null)
      else if chain.streamsBody then streamed(view, chain)
      else readFirst(view, chain)
    F.map(F.handleError(answered)(e => Completion.responseOf(Failure(e))))(responses.of(view, _))

  /**
   * What Rapier refuses that Ember lets through (see `docs/backends.md` §4): a request line over
   * `maxInitialLineLength` (414; Ember bounds only the whole head), an expectation other than `100-continue` (417).
   */
  private def refusalOf(view: Http4sRequest[F]): ServerResponse | Null =
    val request = view.request
    // method, target and version, with their two spaces
    val line = request.method.name.length + view.uri.length + 10
    if line > options.maxInitialLineLength then
      closing(StatusCode.UriTooLong, s"The request line is longer than ${options.maxInitialLineLength} bytes")
    else
      val http10 = request.httpVersion == HttpVersion.`HTTP/1.0`
      if RequestSyntax.unsupportedExpectation(view.headerOrNull("Expect"), http10) then
        refusal(Refusals.UnsupportedExpectation)
      else null

  /** The body read whole, within `maxBodySize`, then the logic. */
  private def readFirst(view: Http4sRequest[F], chain: EndpointChain[F]): F[ServerResponse] =
    val limit = options.maxBodySize
    if declaredOver(view, limit) then F.pure(tooLarge(limit))
    else
      F.flatMap(F.attempt(Bodies.read(view.request, limit, held))) {
        case Left(_: BodyTooLargeException) => F.pure(tooLarge(limit))
        case Left(e) => F.raiseError(e)
        case Right(bytes) =>
          view.body = bytes
          F.guarantee(interpreter.serve(view, chain), F.delay(held.addAndGet(-bytes.length)))
      }

  /**
   * The body handed over as a stream, within `maxStreamedBodySize`: as http4s's own stream to an fs2 reader, pulled
   * chunk by chunk by any other.
   */
  private def streamed(view: Http4sRequest[F], chain: EndpointChain[F]): F[ServerResponse] =
    val limit = options.maxStreamedBodySize
    if declaredOver(view, limit) then F.pure(tooLarge(limit))
    else
      val source = Bodies.source(view.request, limit)
      view.source = source
      F.flatMap(F.start(source.run))(_ => interpreter.serve(view, chain))

  /** Whether the body's declared length is past `limit`: refused before a byte of it is read. */
  private def declaredOver(view: Http4sRequest[F], limit: Long): Boolean = view.request.contentLength.exists(_ > limit)

  private def refusal(reason: RequestSyntax.Invalid): ServerResponse =
    options.serverOptions.problemRenderer(Problem(reason.status, reason.message))

  /** A refusal after which the connection closes: what the client sends next (a body unread) can't be trusted. */
  private def closing(status: StatusCode, message: String): ServerResponse =
    options.serverOptions.problemRenderer(Problem(status, message)).withHeader("Connection", "close")

  private def tooLarge(limit: Long): ServerResponse =
    val reason = Refusals.bodyTooLarge(limit)
    closing(reason.status, reason.message)
