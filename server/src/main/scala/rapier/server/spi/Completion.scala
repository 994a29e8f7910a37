package rapier.server.spi

import org.slf4j.LoggerFactory
import rapier.model.StatusCode
import rapier.server.internal.Done
import rapier.server.ServerResponse

import java.util.concurrent.RejectedExecutionException
import scala.concurrent.{ExecutionContext, Future}
import scala.util.control.NonFatal
import scala.util.{Failure, Success, Try}

/**
 * Running the interpreter for `Future` endpoints, and getting its response back to the thread that owns the
 * connection. The interpreter turns the logic's failures into responses itself; what fails here is the interpreter
 * (or an interceptor), answered with a bare 500 whose cause is logged and never sent.
 */
object Completion:
  private val log = LoggerFactory.getLogger(getClass)

  /** `result`, or a failed future for what computing it throws: `attempt(interpreter.serve(request, chain))`. */
  inline def attempt(inline result: Future[ServerResponse]): Future[ServerResponse] =
    try result
    catch case NonFatal(e) => Future.failed(e)

  /**
   * The response of a result complete now, or null while it is pending. The interpreter's own completed futures (the
   * common case: logic that answered at once) are read as they are, without the `Some(Success(...))` that
   * `Future.value` allocates.
   */
  def nowOrNull(result: Future[ServerResponse]): ServerResponse | Null = result match
    case done: Done[ServerResponse] @unchecked => done.get
    case _ if result.isCompleted => responseOf(result.value.get)
    case _ => null

  /**
   * Calls `k` with the response once `result` completes, on `loop`: at once when it completes on the loop's own
   * thread, else by a hop to it. Nothing runs when the loop no longer takes tasks: the server stopped, and the
   * connection with it.
   */
  def whenComplete(result: Future[ServerResponse], loop: EventLoop)(k: ServerResponse => Unit): Unit =
    result.onComplete(outcome => deliver(responseOf(outcome), loop)(k))(using ExecutionContext.parasitic)

  /**
   * Calls `k` with `response` on `loop`: at once on the loop's own thread, else by a hop to it; nothing when the loop
   * no longer takes tasks (the server stopped, and the connection with it). For a runner whose effect completes on
   * another thread.
   */
  def deliver(response: ServerResponse, loop: EventLoop)(k: ServerResponse => Unit): Unit =
    if loop.inLoop then k(response)
    else
      try loop.execute(() => k(response))
      catch
        case _: RejectedExecutionException =>
          log.debug("A response completed after the server stopped; dropped")

  /** The response, or a bare 500 for a failed one, whose cause is logged and never sent. */
  def responseOf(outcome: Try[ServerResponse]): ServerResponse = outcome match
    case Success(r) => r
    case Failure(e) =>
      log.error("The interpreter failed to produce a response", e)
      ServerResponse.text(StatusCode.InternalServerError, "Internal Server Error")

/** The thread that owns a connection's state: a backend's event loop, or whatever runs its tasks in order. */
trait EventLoop:
  /** Whether the calling thread is the loop's. */
  def inLoop: Boolean

  /**
   * Runs `task` on the loop.
   * @throws java.util.concurrent.RejectedExecutionException
   *   when the loop has stopped
   */
  def execute(task: Runnable): Unit
