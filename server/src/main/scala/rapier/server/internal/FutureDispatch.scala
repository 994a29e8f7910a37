package rapier.server.internal

import org.slf4j.LoggerFactory
import rapier.model.StatusCode
import rapier.server.{Handler, ServerRequest, ServerResponse}

import scala.concurrent.Future
import scala.util.control.NonFatal
import scala.util.{Failure, Success, Try}

/**
 * How backends serving `Future` endpoints hand a request to the interpreter, and what they answer when it fails
 * anyway (the interpreter turns the logic's failures into responses itself; this is for its own).
 */
object FutureDispatch:
  private val log = LoggerFactory.getLogger(getClass)

  /**
   * The answer of the interpreter (or of the chain `ServerInterpreter.routeOrNull` found); something it throws comes
   * back as a failed future.
   */
  def serve(handler: Handler[Future], request: ServerRequest): Future[ServerResponse] =
    try handler(request)
    catch case NonFatal(e) => Future.failed(e)

  /** The response, or a bare 500 for a failed one, whose cause is logged and never sent. */
  def responseOf(outcome: Try[ServerResponse]): ServerResponse = outcome match
    case Success(r) => r
    case Failure(e) =>
      log.error("The interpreter failed to produce a response", e)
      ServerResponse.text(StatusCode.InternalServerError, "Internal Server Error")
