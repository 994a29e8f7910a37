package rapier.server.interceptor

import rapier.model.StatusCode
import rapier.server.*
import org.slf4j.LoggerFactory

import scala.util.control.NonFatal

/**
 * Turns an exception escaping a handler (thrown, or failing its effect) into a response. The default logs it and
 * answers 500 with a generic body: a client never sees an exception's message or stack trace.
 */
trait ExceptionHandler:
  def apply(route: Route, request: ServerRequest, error: Throwable): ServerResponse

object ExceptionHandler:
  private val log = LoggerFactory.getLogger("rapier.server.ExceptionHandler")

  val default: ExceptionHandler = (route, request, error) =>
    val where = route match
      case Route.ToEndpoint(_, label) => label
      case Route.Rejected => "the rejection handler"
    log.error(
      s"Request ${request.method.name} ${rapier.model.Tokens.printable(request.uri)} failed in $where",
      error
    )
    ServerResponse.text(StatusCode.InternalServerError, "Internal Server Error")

/** Applies an [[ExceptionHandler]] around every route. */
final class ExceptionInterceptor(handler: ExceptionHandler) extends Interceptor:
  def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] = request =>
    // Two ways to fail: a throw while building the effect, and a failure inside it.
    try m.handleError(next(request))(e => m.unit(safely(route, request, e)))
    catch case NonFatal(e) => m.unit(safely(route, request, e))

  /** A handler that itself throws must not take the connection down with it. */
  private def safely(route: Route, request: ServerRequest, e: Throwable): ServerResponse =
    try handler(route, request, e)
    catch case NonFatal(_) => ServerResponse.text(StatusCode.InternalServerError, "Internal Server Error")
