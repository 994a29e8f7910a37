package rapier.server.interceptor

import rapier.server.{Handler, Monad, Route}

/**
 * Wraps the handler of a route. Interceptors are called once per route when a server starts, never per request:
 * whatever an interceptor computes outside the handler it returns is free at request time.
 *
 * {{{
 * object Timing extends Interceptor:
 *   def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
 *     request => { val start = System.nanoTime(); m.map(next(request))(r => { record(route, System.nanoTime() - start); r }) }
 * }}}
 */
trait Interceptor:
  def apply[F[_]](route: Route, next: Handler[F])(using Monad[F]): Handler[F]

object Interceptor:
  /** Wraps `handler` in `interceptors`, the first outermost. */
  def compose[F[_]: Monad](interceptors: List[Interceptor], route: Route, handler: Handler[F]): Handler[F] =
    interceptors.foldRight(handler)((interceptor, next) => interceptor(route, next))
