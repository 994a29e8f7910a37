package rapier.zioeffect

import rapier.server.{LogicContext, Monad}
import zio.{Exit, Fiber, FiberId, RIO, Supervisor, Trace, UIO, Unsafe, ZEnvironment, ZIO}

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
   * The effect computed with `c` current, then run with `c` attached to whichever thread runs its fiber: a supervisor
   * attaches it when the fiber resumes and detaches it when the fiber suspends, so that the effect runs where it would
   * without `c` (no hop to another executor). Fibers it forks see `c` too. An effect already complete (an `Exit`) has
   * no step left: it runs as it is.
   */
  override def within[A](c: LogicContext)(fa: => RIO[R, A]): RIO[R, A] =
    super.within(c)(fa) match
      case done: Exit[Throwable, A] @unchecked => done
      case computed =>
        ZIO.fiberIdWith { fiber =>
          val region = ContextRegion(c, fiber)
          ZIO.succeed(region.enter()).zipRight(computed).ensuring(ZIO.succeed(region.leave())).supervised(region)
        }

  def async[A](register: (Either[Throwable, A] => Unit) => Unit): RIO[R, A] =
    ZIO.async[Any, Throwable, A] { cb =>
      register {
        case Right(a) => cb(Exit.succeed(a))
        case Left(e) => cb(Exit.fail(e))
      }
    }

  override def cancelableAsync[A](register: (Either[Throwable, A] => Unit) => (() => Unit)): RIO[R, A] =
    ZIO.asyncInterrupt[Any, Throwable, A] { cb =>
      val cancel = register {
        case Right(a) => cb(Exit.succeed(a))
        case Left(e) => cb(Exit.fail(e))
      }
      Left(ZIO.succeed(cancel()))
    }

/**
 * Where a request's fiber has `c` attached: from [[enter]], on the thread the fiber runs then, to [[leave]]; between
 * them, detached on every suspension and attached again on every resumption, whatever thread it resumes on. A fiber
 * forked in the region has `c` attached whenever it runs.
 *
 * A fiber runs on one thread at a time, and its resumption and suspension happen on the same thread, so a stack per
 * thread ([[Attached]]) pairs them. Before `enter` and after `leave` the supervisor may be installed while the region's
 * own fiber runs without `c`: resuming there attaches nothing.
 */
private final class ContextRegion(c: LogicContext, owner: FiberId.Runtime) extends Supervisor[Unit]:
  // Read and written by the owner's fiber only, which hands them on with itself from thread to thread
  private var entered = false
  private var left = false

  def enter(): Unit =
    entered = true
    Attached.push(owner, c)

  def leave(): Unit =
    left = true
    Attached.pop(owner)

  def value(implicit trace: Trace): UIO[Unit] = ZIO.unit
  def onStart[R, E, A](
      environment: ZEnvironment[R],
      effect: ZIO[R, E, A],
      parent: Option[Fiber.Runtime[Any, Any]],
      fiber: Fiber.Runtime[E, A]
  )(implicit unsafe: Unsafe): Unit = ()
  def onEnd[R, E, A](value: Exit[E, A], fiber: Fiber.Runtime[E, A])(implicit unsafe: Unsafe): Unit = ()

  override def onResume[E, A](fiber: Fiber.Runtime[E, A])(implicit unsafe: Unsafe): Unit =
    val id = fiber.id
    if (id ne owner) || (entered && !left) then Attached.push(id, c)

  override def onSuspend[E, A](fiber: Fiber.Runtime[E, A])(implicit unsafe: Unsafe): Unit = Attached.pop(fiber.id)

/** The contexts attached on a thread by the fibers that ran on it, the one running now on top. */
private object Attached:
  private final class Frame(val fiber: FiberId.Runtime, val scope: AutoCloseable, val below: Frame | Null)

  private val top = new ThreadLocal[Frame | Null]

  def push(fiber: FiberId.Runtime, c: LogicContext): Unit =
    val below = top.get
    if below == null || (below.nn.fiber ne fiber) then top.set(Frame(fiber, c.attach(), below))

  def pop(fiber: FiberId.Runtime): Unit =
    val frame = top.get
    if frame != null && (frame.nn.fiber eq fiber) then
      top.set(frame.nn.below)
      frame.nn.scope.close()

object ZioMonad:
  // Nothing in it depends on `R`, which only types what it is given: one instance serves every environment
  private val instance = new ZioMonad[Any]()

  def apply[R]: ZioMonad[R] = instance.asInstanceOf[ZioMonad[R]]

/** The interpreter's [[rapier.server.Monad]] for ZIO's `RIO[R, *]`, `Task` included. */
given zioMonad[R]: Monad[[A] =>> RIO[R, A]] = ZioMonad[R]
