package rapier.cats

import cats.effect.Async
import rapier.server.Monad

/**
 * What the interpreter needs of an effect, from cats-effect's `Async`: `IO`, or any `F[_]: Async`. The cats-effect
 * servers bring it themselves; code that builds an interpreter for `F` (`VertxServerInterpreter().requestHandler`,
 * `NettyServerInterpreter().initializer`) brings it with `import rapier.cats.given`.
 */
final class CatsMonad[F[_]](F: Async[F]) extends Monad[F]:
  def unit[A](a: A): F[A] = F.pure(a)
  def map[A, B](fa: F[A])(f: A => B): F[B] = F.map(fa)(f)
  def flatMap[A, B](fa: F[A])(f: A => F[B]): F[B] = F.flatMap(fa)(f)
  def error[A](e: Throwable): F[A] = F.raiseError(e)
  def handleError[A](fa: F[A])(h: Throwable => F[A]): F[A] = F.handleErrorWith(fa)(h)
  def async[A](register: (Either[Throwable, A] => Unit) => Unit): F[A] = F.async_(register)

/** The interpreter's [[Monad]] for any `F[_]: Async`. */
given catsMonad[F[_]](using F: Async[F]): Monad[F] = CatsMonad(F)
