package rapier.cats

import cats.effect.{Async, IO}
import rapier.server.{LogicContext, Monad}

import scala.concurrent.ExecutionContext

import scala.util.control.NonFatal

/**
 * What the interpreter needs of an effect, from cats-effect's `Async`: `IO`, or any `F[_]: Async`. The cats-effect
 * servers bring it themselves; code that builds an interpreter for `F` (`VertxServerInterpreter().requestHandler`,
 * `NettyServerInterpreter().initializer`) brings it with `import rapier.cats.given`.
 *
 * For `IO`, a step after an `IO.pure` runs at once, when the interpreter composes it, rather than as one more node for
 * cats-effect's run loop: `IO.pure(a).map(f)` is `IO.pure(f(a))` (or the error `f` throws), as the laws say. The
 * interpreter's steps are its own code — decoding, encoding — never the logic's effects, which stay in their `IO`.
 */
final class CatsMonad[F[_]](F: Async[F]) extends Monad[F]:
  private val isIO = F eq IO.asyncForIO
  private val io = isIO && PureValue.reads

  def unit[A](a: A): F[A] = F.pure(a)

  def map[A, B](fa: F[A])(f: A => B): F[B] =
    val a = pureValue(fa)
    if a.asInstanceOf[AnyRef] eq PureValue.NotPure then F.map(fa)(f)
    else
      try F.pure(f(a.asInstanceOf[A]))
      catch case NonFatal(e) => F.raiseError(e)

  def flatMap[A, B](fa: F[A])(f: A => F[B]): F[B] =
    val a = pureValue(fa)
    if a.asInstanceOf[AnyRef] eq PureValue.NotPure then F.flatMap(fa)(f)
    else
      try f(a.asInstanceOf[A])
      catch case NonFatal(e) => F.raiseError(e)

  def error[A](e: Throwable): F[A] = F.raiseError(e)

  def handleError[A](fa: F[A])(h: Throwable => F[A]): F[A] =
    if pureValue(fa).asInstanceOf[AnyRef] eq PureValue.NotPure then F.handleErrorWith(fa)(h) else fa

  def async[A](register: (Either[Throwable, A] => Unit) => Unit): F[A] = F.async_(register)
  override def cancelableAsync[A](register: (Either[Throwable, A] => Unit) => (() => Unit)): F[A] =
    F.async { done =>
      F.delay {
        val cancel = register(done)
        Some(F.delay(cancel()))
      }
    }

  /**
   * Cancelled included, once the fiber runs the region: a fiber cancelled before it starts runs none, which the
   * runner's cancellation hooks (`ServerRequest.whenCancelled`) cover.
   */
  override def guarantee[A](fa: F[A])(finalizer: () => Unit): F[A] = F.guarantee(fa, F.delay(finalizer()))

  /**
   * The effect computed with `c` current, then run on its own pool wrapped by `c`, so that `c` is current on whichever
   * thread runs each step. An `IO` first runs here, `c` attached, up to its first asynchronous boundary
   * ([[SyncSteps]], as the runner does): logic that answers at once costs no hop to another pool and back, and only
   * what remains after a boundary is shifted.
   */
  override def within[A](c: LogicContext)(fa: => F[A]): F[A] =
    val computed = super.within(c)(fa)
    if !(pureValue(computed).asInstanceOf[AnyRef] eq PureValue.NotPure) then computed
    else if isIO then
      IO.defer {
        val scope = c.attach()
        val step =
          try SyncSteps.run(computed.asInstanceOf[IO[A]])
          finally scope.close()
        step match
          case Right(a) => IO.pure(a)
          case Left(rest) => shifted(c, rest.asInstanceOf[F[A]]).asInstanceOf[IO[A]]
      }.asInstanceOf[F[A]]
    else shifted(c, computed)

  private def shifted[A](c: LogicContext, fa: F[A]): F[A] =
    F.flatMap(F.executionContext) { ec =>
      F.evalOn(fa, ExecutionContext.fromExecutor(c.wrap(ec.execute(_)), ec.reportFailure))
    }

  private inline def pureValue[A](fa: F[A]): Any =
    if io then PureValue.of(fa.asInstanceOf[AnyRef]) else PureValue.NotPure

/** The interpreter's [[rapier.server.Monad]] for any `F[_]: Async`. */
given catsMonad[F[_]](using F: Async[F]): Monad[F] = CatsMonad(F)
