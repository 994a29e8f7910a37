package rapier.zioeffect

import rapier.server.{LogicContext, Monad}
import zio.{Exit, RIO, ZIO}

/**
 * What the interpreter needs of an effect, for ZIO's `RIO[R, *]` (`Task` when the logic needs no environment): logic
 * in `ZIO[R, E, O]` is served as an `RIO[R, Either[E, O]]` (see [[zServerLogic]]). The ZIO servers bring it
 * themselves; code that builds an interpreter for ZIO brings it with `import rapier.zioeffect.given`.
 *
 * A failure the logic's own code throws inside `ZIO.succeed` is a defect to ZIO; the interpreter handles it as it
 * handles a failure (a 500 naming a request id), and never an interruption, which ends the request's fiber.
 */
final class ZioMonad[R] private () extends Monad[[A] =>> RIO[R, A]]:
  def unit[A](a: A): RIO[R, A] = Exit.succeed(a)
  def map[A, B](fa: RIO[R, A])(f: A => B): RIO[R, B] = fa.map(f)
  def flatMap[A, B](fa: RIO[R, A])(f: A => RIO[R, B]): RIO[R, B] = fa.flatMap(f)
  def error[A](e: Throwable): RIO[R, A] = Exit.fail(e)

  def handleError[A](fa: RIO[R, A])(h: Throwable => RIO[R, A]): RIO[R, A] =
    fa.catchAllCause(cause => if cause.isInterrupted then Exit.failCause(cause) else h(cause.squashTrace))

  // Interrupted included: a fiber whose client went away still lets go of what the request made
  override def guarantee[A](fa: RIO[R, A])(finalizer: () => Unit): RIO[R, A] =
    fa.ensuring(ZIO.succeed(finalizer()))

  /**
   * The effect computed with `c` current, then run on its executor wrapped by `c`, so that `c` is current on whichever
   * thread runs each step; the yield after it leaves the wrapped task, in which the fiber would go on, `c` still
   * current. An effect already complete (an `Exit`) has no step left: it skips the shift.
   */
  override def within[A](c: LogicContext)(fa: => RIO[R, A]): RIO[R, A] =
    super.within(c)(fa) match
      case done: Exit[Throwable, A] @unchecked => done // complete: no step left to run with `c`
      case computed =>
        ZIO.executorWith { e =>
          computed.onExecutor(zio.Executor.fromJavaExecutor(c.wrap(e.asJava))).ensuring(ZIO.yieldNow)
        }

  def async[A](register: (Either[Throwable, A] => Unit) => Unit): RIO[R, A] =
    ZIO.async[Any, Throwable, A] { cb =>
      register {
        case Right(a) => cb(Exit.succeed(a))
        case Left(e) => cb(Exit.fail(e))
      }
    }

object ZioMonad:
  // Nothing in it depends on `R`, which only types what it is given: one instance serves every environment
  private val instance = new ZioMonad[Any]()

  def apply[R]: ZioMonad[R] = instance.asInstanceOf[ZioMonad[R]]

/** The interpreter's [[Monad]] for ZIO's `RIO[R, *]`, `Task` included. */
given zioMonad[R]: Monad[[A] =>> RIO[R, A]] = ZioMonad[R]
