package rapier.zioeffect

import rapier.server.Monad
import zio.{Exit, Task, ZIO}

/**
 * What the interpreter needs of an effect, for ZIO's `Task`: logic in `ZIO[Any, E, O]` is served as a `Task` of
 * `Either[E, O]` (see [[zServerLogic]]). The ZIO servers bring it themselves; code that builds an interpreter for
 * `Task` brings it with `import rapier.zioeffect.given`.
 *
 * A failure the logic's own code throws inside `ZIO.succeed` is a defect to ZIO; the interpreter handles it as it
 * handles a failure (a 500 naming a request id), and never an interruption, which ends the request's fiber.
 */
object ZioMonad extends Monad[Task]:
  def unit[A](a: A): Task[A] = Exit.succeed(a)
  def map[A, B](fa: Task[A])(f: A => B): Task[B] = fa.map(f)
  def flatMap[A, B](fa: Task[A])(f: A => Task[B]): Task[B] = fa.flatMap(f)
  def error[A](e: Throwable): Task[A] = Exit.fail(e)

  def handleError[A](fa: Task[A])(h: Throwable => Task[A]): Task[A] =
    fa.catchAllCause(cause => if cause.isInterrupted then Exit.failCause(cause) else h(cause.squashTrace))

  def async[A](register: (Either[Throwable, A] => Unit) => Unit): Task[A] =
    ZIO.async[Any, Throwable, A] { cb =>
      register {
        case Right(a) => cb(Exit.succeed(a))
        case Left(e) => cb(Exit.fail(e))
      }
    }

/** The interpreter's [[Monad]] for ZIO's `Task`. */
given zioMonad: Monad[Task] = ZioMonad
