package rapier.cats

import cats.effect.std.Dispatcher
import cats.effect.{Async, IO, Resource}
import rapier.server.spi.{Completion, EventLoop, Runner, Running, ServerRequest}
import rapier.server.{EndpointChain, ServerInterpreter, ServerResponse}

import scala.concurrent.{ExecutionContext, Future}
import scala.concurrent.duration.FiniteDuration
import scala.util.Failure
import scala.util.control.NonFatal

/**
 * Runs endpoints whose logic is in `F[_]: Async` on a backend's event loop.
 *
 * For `IO`, what the interpreter answers is first run right there, on the connection's loop, up to its first
 * asynchronous boundary ([[SyncSteps]]; an `IO.pure` is read as it is, see [[PureValue]]): logic that answers at once
 * — `IO.pure`, `IO.delay`, decoding, encoding — costs no hop between threads, and a response goes out from the loop
 * that read its request. What remains after a boundary (`IO.blocking`, `IO.sleep`, an async call) runs on the runtime
 * of `dispatcher` and hops back; it is a fiber, cancelled if its client goes away. Code in `IO.delay` must therefore
 * not block: what blocks belongs in `IO.blocking` or `IO.interruptible`, as anywhere in cats-effect, and a blocking
 * call by mistake holds the loop and every connection on it until it returns.
 *
 * Any other `F` runs on `dispatcher` from the start, its response hopping back to the loop.
 */
final class CatsRunner[F[_]](dispatcher: Dispatcher[F])(using F: Async[F]) extends Runner[F]:
  // `syncStep` is IO's: only IO takes the fast path.
  private val io = F eq IO.asyncForIO

  def start(
      interpreter: ServerInterpreter[F],
      request: ServerRequest,
      chain: EndpointChain[F] | Null
  ): ServerResponse | Running =
    try
      val result = interpreter.serve(request, chain)
      if io then
        PureValue.of(result.asInstanceOf[AnyRef]) match
          case response: ServerResponse => response
          case _ =>
            SyncSteps.run(result.asInstanceOf[IO[ServerResponse]]) match
              case Right(response) => response
              case Left(rest) => Pending(rest.asInstanceOf[F[ServerResponse]], request)
      else Pending(result, request)
    catch case NonFatal(e) => Completion.responseOf(Failure(e))

  /**
   * The rest of a request's effect, run as a fiber on the dispatcher's runtime. Cancelled, the request's hooks run
   * once the fiber has stopped: a fiber cancelled before it starts runs none of its finalizers.
   */
  private final class Pending(rest: F[ServerResponse], request: ServerRequest) extends Running:
    @volatile private var cancelFiber: (() => Future[Unit]) | Null = null

    def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit =
      val (result, cancel) = dispatcher.unsafeToFutureCancelable(rest)
      cancelFiber = cancel
      Completion.whenComplete(result, loop)(k)

    def cancellable: Boolean = true

    def cancel(): Unit =
      val c = cancelFiber
      if c != null then c().onComplete(_ => request.cancelled())(using ExecutionContext.parasitic)

object CatsRunner:
  /**
   * A runner for a server, with a dispatcher of its own: released after the server, it cancels the fibers still
   * running then, and waits for them at most `shutdownTimeout` — a fiber that can't be cancelled (an uncancelable
   * region, a future awaited) is left to finish in the background rather than hold the release forever.
   */
  def resource[F[_]](shutdownTimeout: FiniteDuration)(using F: Async[F]): Resource[F, CatsRunner[F]] =
    dispatcher[F](shutdownTimeout).map(CatsRunner(_))

  /**
   * A dispatcher for a server's life that, released, cancels what it still runs and waits for it at most
   * `shutdownTimeout`: what can't be cancelled is left to finish in the background.
   */
  def dispatcher[F[_]](shutdownTimeout: FiniteDuration)(using F: Async[F]): Resource[F, Dispatcher[F]] =
    Resource
      .make(Dispatcher.parallel[F](await = false).allocated) { (_, release) =>
        F.flatMap(F.start(release))(fiber => F.timeoutTo(F.void(fiber.join), shutdownTimeout, F.unit))
      }
      .map((dispatcher, _) => dispatcher)
