package rapier.server.spi

import rapier.server.{EndpointChain, ServerInterpreter, ServerResponse}

import scala.concurrent.Future

/**
 * How a backend runs its endpoints' effect `F`: serves a request through the interpreter, and gets the response back
 * to the connection's [[EventLoop]]. The one thing about an effect that a backend needs; a backend written against it
 * serves `Future` logic, an effect module's (cats-effect's `IO`, any `F[_]: Async`) and direct style alike.
 *
 * A runner answers at once, on the calling thread (the connection's loop), when it can: logic that completes at once
 * then costs no hop between threads. Otherwise it hands back a [[rapier.server.spi.Running]] to wait on.
 */
trait Runner[F[_]]:
  /**
   * Serves `request` through the `chain` the backend's routing found at its head (null when no endpoint took it: its
   * rejection), and starts what the interpreter answers: the response, when it is complete before anything had to
   * wait, else the [[rapier.server.spi.Running]] that will be. What the interpreter throws is a 500 (see [[rapier.server.spi.Completion.responseOf]]).
   */
  def start(
      interpreter: ServerInterpreter[F],
      request: ServerRequest,
      chain: EndpointChain[F] | Null
  ): ServerResponse | Running

/** A response still being computed. */
trait Running:
  /** Calls `k` with the response, on `loop`, once it is complete. Called once, by the loop. */
  def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit

  /** Whether [[cancel]] can stop the computation (a fiber, a thread), so that a backend tracks it. */
  def cancellable: Boolean

  /**
   * The client went away: stop computing, if the effect can be stopped. A runner that stops it calls the request's
   * [[ServerRequest.cancelled]] once it has stopped (or if it never started).
   */
  def cancel(): Unit

object Runner:
  /**
   * `Future` logic: the interpreter's own completed futures (logic that answered at once) are read as they are, on the
   * loop; others complete on any thread and hop back. A future can't be cancelled.
   */
  given future: Runner[Future] with
    def start(
        interpreter: ServerInterpreter[Future],
        request: ServerRequest,
        chain: EndpointChain[Future] | Null
    ): ServerResponse | Running =
      val result = Completion.attempt(interpreter.serve(request, chain))
      Completion.nowOrNull(result) match
        case null => FutureRunning(result)
        case now: ServerResponse => now

  private final class FutureRunning(result: Future[ServerResponse]) extends Running:
    def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit = Completion.whenComplete(result, loop)(k)
    def cancellable: Boolean = false
    def cancel(): Unit = ()
