package rapier.server.interceptor

import rapier.model.Tokens
import rapier.server.*
import org.slf4j.event.Level
import org.slf4j.{Logger, LoggerFactory}

/**
 * Logs one line per request: method, path template (or the raw target when no endpoint matched), status and
 * duration, e.g. `GET /books/{id} 200 0.412ms`, then what interceptors noted (`ServerRequest.logNote`: a trace's ids).
 *
 * The label of each route is computed when the server starts; per request, the only cost while the logger is off
 * is asking it whether it is on. Nothing is timed, formatted or allocated unless the line will be written.
 */
final class RequestLog(logger: Logger, level: Level) extends Interceptor:
  def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
    val label = route match
      case Route.ToEndpoint(_, l) => l
      case Route.Rejected => null
    request =>
      if !logger.isEnabledForLevel(level) then next(request)
      else
        val start = System.nanoTime()
        m.map(next(request)) { response =>
          val what =
            if label != null then label else s"${request.method.name} ${Tokens.printable(request.uri)}"
          val line = s"$what ${response.status} ${RequestLog.millis(System.nanoTime() - start)}"
          write(if request.logNote == null then line else s"$line ${request.logNote}")
          response
        }

  private def write(line: String): Unit = level match
    case Level.ERROR => logger.error(line)
    case Level.WARN => logger.warn(line)
    case Level.INFO => logger.info(line)
    case Level.DEBUG => logger.debug(line)
    case Level.TRACE => logger.trace(line)

object RequestLog:
  /** Logs to `rapier.server.RequestLog` at DEBUG. */
  val default: RequestLog = RequestLog(LoggerFactory.getLogger("rapier.server.RequestLog"), Level.DEBUG)

  private def millis(nanos: Long): String =
    val micros = nanos / 1000
    s"${micros / 1000}.${"%03d".format(micros % 1000)}ms"
