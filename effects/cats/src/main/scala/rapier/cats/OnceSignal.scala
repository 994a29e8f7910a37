package rapier.cats

import cats.effect.Async
import rapier.server.spi.OnceSignal

extension [A](signal: OnceSignal[A])
  /** Waits for the signal's value; cancelable, the callback then ignored. */
  private[rapier] def await[F[_]](using F: Async[F]): F[A] =
    F.async(cb => F.delay { signal.register(a => cb(Right(a))); Some(F.unit) })
