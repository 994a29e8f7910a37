package rapier.zioeffect

import rapier.model.StatusCode
import rapier.server.spi.{Completion, EventLoop, Runner, Running, ServerRequest}
import rapier.server.{Binding, EndpointChain, ServerInterpreter, ServerResponse}
import zio.{Exit, Fiber, FiberRef, RIO, Runtime, Scope, UIO, Unsafe, ZIO}

import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters.*
import scala.util.Failure
import scala.util.control.NonFatal

/**
 * Runs endpoints whose logic is a ZIO `RIO[R, *]` (a `Task` when `R` is `Any`) on a backend's event loop, with
 * `runtime`, whose environment is the one the logic is given: no step per request provides it.
 *
 * What the interpreter answers is first run right there, on the connection's loop, up to its first asynchronous
 * boundary (ZIO's `runOrFork`): logic that answers at once — `ZIO.succeed`, `ZIO.fail`, decoding, encoding — costs no
 * hop between threads, and a response goes out from the loop that read its request. What remains after a boundary
 * (`ZIO.blocking`, `ZIO.sleep`, an async call) goes on as a fiber on the runtime's executor and hops back; it is
 * interrupted if its client goes away. Code in `ZIO.succeed` must therefore not block: what blocks belongs in
 * `ZIO.attemptBlocking`, as anywhere in ZIO, and a blocking call by mistake holds the loop and every connection on it
 * until it returns.
 *
 * A server's runner is best made with [[ZioRunner.scoped]], which interrupts what still runs when the server's scope
 * closes.
 */
final class ZioRunner[R](runtime: Runtime[R]) extends Runner[[A] =>> RIO[R, A]]:
  // What a release interrupts: the fibers of requests past an asynchronous boundary, and, when `runtime` carries this
  // set (a runner made by `scoped`), the fibers they forked to outlive them (response streams, WebSocket pipes)
  private val inFlight: ZioRunner.Fibers =
    val carried = runtime.fiberRefs.getOrDefault(ZioRunner.forked)
    if carried == null then ZioRunner.Fibers() else carried

  def start(
      interpreter: ServerInterpreter[[A] =>> RIO[R, A]],
      request: ServerRequest,
      chain: EndpointChain[[A] =>> RIO[R, A]] | Null
  ): ServerResponse | Running =
    try
      val result = interpreter.serve(request, chain)
      Unsafe.unsafely(runtime.unsafe.runOrFork(result)) match
        case Right(exit) => ZioRunner.responseOf(exit)
        case Left(fiber) =>
          inFlight.track(fiber)
          Pending(fiber, request)
    catch case NonFatal(e) => Completion.responseOf(Failure(e))

  /**
   * Interrupts the requests' fibers still running (and those they forked, for a runner made by [[ZioRunner.scoped]])
   * and waits for them to end, their finalizers run, at most `within`: a fiber in an uninterruptible region is left to
   * finish in the background rather than hold the caller forever.
   */
  def interruptAll(within: FiniteDuration): UIO[Unit] = inFlight.interruptAll(within)

  /**
   * The rest of a request's effect, a fiber on the runtime: interrupted when its client goes away, which includes a
   * server stopping with it still running past the shutdown timeout (the backend then closes its connection).
   */
  private final class Pending(fiber: Fiber.Runtime[Throwable, ServerResponse], request: ServerRequest)
      extends Running:
    def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit =
      Unsafe.unsafely {
        fiber.unsafe.addObserver(exit => Completion.deliver(ZioRunner.responseOf(exit), loop)(k))
      }

    def cancellable: Boolean = true

    def cancel(): Unit = Unsafe.unsafely {
      fiber.unsafe.addObserver(_ => request.cancelled())
      fiber.unsafe.interrupt(zio.Cause.interrupt(zio.FiberId.None))
    }

object ZioRunner:
  /**
   * A runner for a server's life, on the runtime of the effect that starts it (its environment, `R`, the one the
   * logic is given): released after the server (acquire it first), it interrupts the fibers still running then and
   * waits for them at most `shutdownTimeout`, as a scope waits for the fibers it interrupts.
   */
  def scoped[R](shutdownTimeout: FiniteDuration): ZIO[R & Scope, Nothing, ZioRunner[R]] =
    // The runtime carries the runner's set, so that what a request forks to outlive it joins the set (`forkDaemon`)
    forked.locally(Fibers())(ZIO.runtime[R]).flatMap(runtime =>
      ZIO.acquireRelease(ZIO.succeed(ZioRunner(runtime)))(_.interruptAll(shutdownTimeout))
    )

  /**
   * A server as each backend's ZIO flavour starts it: `bind` given a [[scoped]] runner, within the scope, stopped when
   * the scope closes and then its fibers still running interrupted and waited for.
   */
  def serve[R, B <: Binding](shutdownTimeout: FiniteDuration)(
      bind: Runner[[A] =>> RIO[R, A]] ?=> B
  ): ZIO[R & Scope, Throwable, B] =
    scoped[R](shutdownTimeout).flatMap(runner =>
      ZIO.acquireRelease(ZIO.attemptBlocking(bind(using runner)))(b => ZIO.attemptBlocking(b.stop()).ignoreLogged)
    )

  /** Fibers a server started and has not seen end. */
  private[zioeffect] final class Fibers:
    private val live = ConcurrentHashMap.newKeySet[Fiber.Runtime[Any, Any]]()

    def track(fiber: Fiber.Runtime[Any, Any]): Unit =
      live.add(fiber)
      Unsafe.unsafely(fiber.unsafe.addObserver(_ => live.remove(fiber)))

    def interruptAll(within: FiniteDuration): UIO[Unit] =
      ZIO.suspendSucceed(Fiber.interruptAll(live.asScala.toList)).timeout(zio.Duration.fromScala(within)).unit

  /** The set of the runner whose request is running, if it was made by [[scoped]]. */
  private val forked: FiberRef[Fibers | Null] = Unsafe.unsafely(FiberRef.unsafe.make[Fibers | Null](null))

  /**
   * Forks `effect` as a daemon fiber (one that outlives the request that starts it: a response body's stream, a
   * WebSocket's pipe) that the server's stop interrupts and waits for, as it does its requests' fibers.
   */
  private[zioeffect] def forkDaemon(effect: UIO[Unit]): UIO[Unit] =
    forked.get.flatMap(fibers =>
      effect.forkDaemon.map(fiber => if fibers != null then fibers.track(fiber))
    )

  /**
   * The response, or a bare 500 for a failure the interpreter could not handle (logged, never sent); a 503 for a
   * fiber interrupted (its client gone, or the server stopping), which no one reads.
   */
  def responseOf(exit: Exit[Throwable, ServerResponse]): ServerResponse = exit match
    case Exit.Success(response) => response
    case Exit.Failure(cause) =>
      if cause.isInterruptedOnly then ServerResponse.text(StatusCode.ServiceUnavailable, "Service Unavailable")
      else Completion.responseOf(Failure(cause.squashTrace))
