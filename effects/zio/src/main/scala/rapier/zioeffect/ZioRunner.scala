package rapier.zioeffect

import rapier.model.StatusCode
import rapier.server.spi.{Completion, EventLoop, Runner, Running, ServerRequest}
import rapier.server.{EndpointChain, ServerInterpreter, ServerResponse}
import zio.{Exit, Fiber, Runtime, Task, Unsafe}

import scala.util.Failure
import scala.util.control.NonFatal

/**
 * Runs endpoints whose logic is a ZIO `Task` on a backend's event loop, with `runtime`.
 *
 * What the interpreter answers is first run right there, on the connection's loop, up to its first asynchronous
 * boundary (ZIO's `runOrFork`): logic that answers at once — `ZIO.succeed`, `ZIO.fail`, decoding, encoding — costs no
 * hop between threads, and a response goes out from the loop that read its request. What remains after a boundary
 * (`ZIO.blocking`, `ZIO.sleep`, an async call) goes on as a fiber on the runtime's executor and hops back; it is
 * interrupted if its client goes away. Code in `ZIO.succeed` must therefore not block: what blocks belongs in
 * `ZIO.attemptBlocking`, as anywhere in ZIO, and a blocking call by mistake holds the loop and every connection on it
 * until it returns.
 */
final class ZioRunner(runtime: Runtime[Any]) extends Runner[Task]:
  def start(
      interpreter: ServerInterpreter[Task],
      request: ServerRequest,
      chain: EndpointChain[Task] | Null,
      routed: Boolean
  ): ServerResponse | Running =
    try
      val result = Runner.serve(interpreter, request, chain, routed)
      Unsafe.unsafely(runtime.unsafe.runOrFork(result)) match
        case Right(exit) => ZioRunner.responseOf(exit)
        case Left(fiber) => Pending(fiber)
    catch case NonFatal(e) => Completion.responseOf(Failure(e))

  /**
   * The rest of a request's effect, a fiber on the runtime: interrupted when its client goes away, which includes a
   * server stopping with it still running past the shutdown timeout (the backend then closes its connection).
   */
  private final class Pending(fiber: Fiber.Runtime[Throwable, ServerResponse]) extends Running:
    def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit =
      Unsafe.unsafely {
        fiber.unsafe.addObserver(exit => Completion.deliver(ZioRunner.responseOf(exit), loop)(k))
      }

    def cancellable: Boolean = true

    def cancel(): Unit = Unsafe.unsafely(fiber.unsafe.interrupt(zio.Cause.interrupt(zio.FiberId.None)))

object ZioRunner:
  /**
   * The response, or a bare 500 for a failure the interpreter could not handle (logged, never sent); a 503 for a
   * fiber interrupted (its client gone, or the server stopping), which no one reads.
   */
  def responseOf(exit: Exit[Throwable, ServerResponse]): ServerResponse = exit match
    case Exit.Success(response) => response
    case Exit.Failure(cause) =>
      if cause.isInterruptedOnly then ServerResponse.text(StatusCode.ServiceUnavailable, "Service Unavailable")
      else Completion.responseOf(Failure(cause.squashTrace))
