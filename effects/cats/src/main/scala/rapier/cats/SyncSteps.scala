package rapier.cats

import cats.effect.kernel.{CancelScope, Poll, Sync}
import cats.effect.{IO, SyncIO}

import scala.concurrent.duration.FiniteDuration

/**
 * Runs an `IO` on the calling thread up to its first asynchronous boundary, or up to the first `uncancelable` or
 * `onCancel` region it meets: what remains, region included, is handed back to run as a fiber.
 *
 * `IO.syncStep` into `SyncIO` steps into those regions, `SyncIO` being uncancelable, and hands back what follows the
 * boundary without the region's finalizer or mask (cats-effect issue #4687): a `Resource.use` or `guarantee` spanning
 * the boundary would not run its release when its client goes away. Stepping into a `Sync` whose root scope is
 * cancelable makes `syncStep` stop at the region instead, with the remainder intact.
 */
private[cats] object SyncSteps:
  /**
   * How many steps run on the calling thread before the rest goes to the runtime anyway: a request's interpreter steps
   * and logic take far fewer; a long synchronous loop in `IO` should not hold the connection's loop.
   */
  val Max: Int = 1024

  /** `io` run here as far as it can be: its value, or what remains to run as a fiber. */
  def run[A](io: IO[A]): Either[IO[A], A] = IO.asyncForIO.syncStep[SyncIO, A](io, Max)(using Stepper).unsafeRunSync()

  /**
   * `SyncIO` with a cancelable root scope. `syncStep` only reads the scope and uses the sequential operations, so the
   * region operations, which it never calls, keep `SyncIO`'s own meaning.
   */
  private object Stepper extends Sync[SyncIO]:
    private val S = SyncIO.syncForSyncIO

    def rootCancelScope: CancelScope = CancelScope.Cancelable
    def pure[A](a: A): SyncIO[A] = S.pure(a)
    def raiseError[A](e: Throwable): SyncIO[A] = S.raiseError(e)
    def handleErrorWith[A](fa: SyncIO[A])(f: Throwable => SyncIO[A]): SyncIO[A] = S.handleErrorWith(fa)(f)
    def flatMap[A, B](fa: SyncIO[A])(f: A => SyncIO[B]): SyncIO[B] = S.flatMap(fa)(f)
    override def map[A, B](fa: SyncIO[A])(f: A => B): SyncIO[B] = S.map(fa)(f)
    def tailRecM[A, B](a: A)(f: A => SyncIO[Either[A, B]]): SyncIO[B] = S.tailRecM(a)(f)
    def suspend[A](hint: Sync.Type)(thunk: => A): SyncIO[A] = S.suspend(hint)(thunk)
    def monotonic: SyncIO[FiniteDuration] = S.monotonic
    def realTime: SyncIO[FiniteDuration] = S.realTime
    def forceR[A, B](fa: SyncIO[A])(fb: SyncIO[B]): SyncIO[B] = S.forceR(fa)(fb)
    def uncancelable[A](body: Poll[SyncIO] => SyncIO[A]): SyncIO[A] = S.uncancelable(body)
    def canceled: SyncIO[Unit] = S.canceled
    def onCancel[A](fa: SyncIO[A], fin: SyncIO[Unit]): SyncIO[A] = S.onCancel(fa, fin)
