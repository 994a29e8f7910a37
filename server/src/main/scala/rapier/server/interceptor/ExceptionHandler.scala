package rapier.server.interceptor

import rapier.model.StatusCode
import rapier.server.*
import rapier.server.spi.ServerRequest
import org.slf4j.{Logger, LoggerFactory}

import scala.util.control.NonFatal

/**
 * Turns an exception escaping a handler (thrown, or failing its effect) into a response. The default logs it under
 * a new request id and answers 500 with a generic [[Problem]] carrying that id: a client never sees an exception's
 * message or stack trace, and an operator finds the log entry from what the client reports.
 */
trait ExceptionHandler:
  def apply(route: Route, request: ServerRequest, error: Throwable, render: ProblemRenderer): ServerResponse

object ExceptionHandler:
  /** Logs to `rapier.server.ExceptionHandler`. */
  val default: ExceptionHandler = logging(LoggerFactory.getLogger("rapier.server.ExceptionHandler"))

  /** Logs the exception at ERROR to `log`, under a new request id that the 500 also carries. */
  def logging(log: Logger): ExceptionHandler = (route, request, error, render) =>
    val where = route match
      case Route.ToEndpoint(_, label) => label
      case Route.Rejected => "the rejection handler"
    val id = newRequestId()
    log.error(
      s"[request $id] ${request.method.name} ${rapier.model.Tokens.printable(request.uri)} failed in $where",
      error
    )
    render(
      Problem(
        StatusCode.InternalServerError,
        s"The server failed to answer this request; its log has the details under request id $id.",
        requestId = Some(id)
      )
    )

  /** 16 hexadecimal digits, random: unique enough to find one failure in a log. */
  def newRequestId(): String =
    val n = java.util.concurrent.ThreadLocalRandom.current().nextLong()
    val s = java.lang.Long.toHexString(n)
    "0" * (16 - s.length) + s

/** Applies an [[ExceptionHandler]] around every route. */
final class ExceptionInterceptor(handler: ExceptionHandler, render: ProblemRenderer) extends Interceptor:
  def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] = request =>
    // Two ways to fail: a throw while building the effect, and a failure inside it.
    try m.handleError(next(request))(e => m.unit(safely(route, request, e)))
    catch case NonFatal(e) => m.unit(safely(route, request, e))

  /** A handler that itself throws must not take the connection down with it. */
  private def safely(route: Route, request: ServerRequest, e: Throwable): ServerResponse =
    try handler(route, request, e, render)
    catch case NonFatal(_) => ServerResponse.text(StatusCode.InternalServerError, "Internal Server Error")
