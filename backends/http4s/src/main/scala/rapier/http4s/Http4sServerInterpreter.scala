package rapier.http4s

import cats.data.{Kleisli, OptionT}
import cats.effect.Async
import org.http4s.{HttpApp, HttpRoutes, HttpVersion, Request, Response}
import rapier.cats.catsMonad
import rapier.http4s.internal.{Bodies, HeadCheck, Http4sRequest, Responses}
import rapier.server.spi.{Completion, Refusals, RequestBodyException, RequestSyntax}
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
 * endpoint takes. A taken request's body is read whole, within `maxBodySize` (413 past it) and `bodyReadTimeout`
 * (408), before the logic runs; for an endpoint that streams its body, http4s's own fs2 stream is handed to the
 * endpoint with one stage of Rapier's that watches it (`maxStreamedBodySize`, the read deadline while the logic waits,
 * broken framing), with no conversion. A response body that is an fs2 stream goes back to http4s as that stream.
 *
 * A request that came over an HTTP/1.x connection is first checked for what Ember's lenient parser lets through
 * (`docs/backends.md` §4); requests made in memory are not.
 */
final class Http4sServerInterpreter[F[_]](
    endpoints: List[ServerEndpoint[F]],
    options: Http4sServerOptions = Http4sServerOptions.default
)(using F: Async[F]):
  private val interpreter = ServerInterpreter(endpoints, options.serverOptions).withoutWebSockets("http4s")
  private val held = AtomicLong()
  private val responses = Responses[F]()
  private val fromClient = Bodies.clientsDoing(options.bodyReadTimeout)

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
    val refused = HeadCheck.problem(view.request, view.uri, options.maxInitialLineLength, options.maxHeaderSize)
    if refused != null then refuse(view, refused.nn, bodyUnread = true)
    else
      val expect = view.headerOrNull("Expect")
      if RequestSyntax.unsupportedExpectation(expect, view.request.httpVersion == HttpVersion.`HTTP/1.0`) then
        refuse(view, Refusals.UnsupportedExpectation, bodyUnread = true)
      else if chain == null then answer(view, interpreter.serve(view, null), closes = false)
      else if chain.streamsBody then streamed(view, chain)
      else readFirst(view, chain)

  /** The response to `answered`, or a bare 500 if the interpreter failed to produce one. */
  private def answer(view: Http4sRequest[F], answered: F[ServerResponse], closes: Boolean): F[Response[F]] =
    F.flatMap(orServerError(answered))(responses.of(view, _, closes))

  /** `answered`, or a bare 500 (its cause logged) if the interpreter failed to produce a response. */
  private def orServerError(answered: F[ServerResponse]): F[ServerResponse] =
    F.handleError(answered)(e => Completion.responseOf(Failure(e)))

  /**
   * The body read whole, within `maxBodySize` and `bodyReadTimeout`, then the logic; a body that can't be read is
   * refused (413, 400, 408), and the connection closes.
   */
  private def readFirst(view: Http4sRequest[F], chain: EndpointChain[F]): F[Response[F]] =
    val limit = options.maxBodySize
    if declaredOver(view, limit) then refuse(view, Refusals.bodyTooLarge(limit), bodyUnread = true)
    else if !Bodies.hasBody(view.request) then
      view.body = Array.emptyByteArray
      answer(view, interpreter.serve(view, chain), closes = false)
    else
      val reading = Bodies.Reading(view.request, limit, options.bodyReadTimeout, held)
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
          answer(view, F.guarantee(interpreter.serve(view, chain), F.delay(held.addAndGet(-bytes.length))), false)
      }

  /**
   * The body handed over as a stream, within `maxStreamedBodySize`, timed while the logic waits for it: as http4s's
   * own stream to an fs2 reader, pulled chunk by chunk by any other. A body that could not be read answers the request
   * with its refusal whatever the logic answered; one the logic left unread closes the connection.
   */
  private def streamed(view: Http4sRequest[F], chain: EndpointChain[F]): F[Response[F]] =
    val limit = options.maxStreamedBodySize
    if declaredOver(view, limit) then refuse(view, Refusals.bodyTooLarge(limit), bodyUnread = true)
    else
      val body = Bodies.Watched(view.request, limit, options.bodyReadTimeout, fromClient)
      view.source = body.source
      F.flatMap(F.start(body.source.run)) { reader =>
        F.flatMap(orServerError(body.timed(interpreter.serve(view, chain)))) { r =>
          val refused = body.refusal
          if refused != null then refuse(view, refused.nn, bodyUnread = false)
          else
            // What the logic left unread is drained after the response: so that the connection can go on when nothing
            // read it, and so that its close doesn't reset it under the response otherwise
            if Bodies.hasBody(view.request) then view.drain = body.drain(reader)
            responses.of(view, r, closes = body.readInPart)
        }
      }

  /** Whether the body's declared length is past `limit`: refused before a byte of it is read. */
  private def declaredOver(view: Http4sRequest[F], limit: Long): Boolean = view.request.contentLength.exists(_ > limit)

  /** A refusal, after which the connection closes; a body nothing has read yet is drained after it. */
  private def refuse(view: Http4sRequest[F], reason: RequestSyntax.Invalid, bodyUnread: Boolean): F[Response[F]] =
    if bodyUnread && Bodies.hasBody(view.request) then view.drain = Bodies.linger(view.request.body)
    responses.of(view, refusal(reason), closes = true)

  private def refusal(reason: RequestSyntax.Invalid): ServerResponse =
    options.serverOptions.problemRenderer(Problem(reason.status, reason.message))
