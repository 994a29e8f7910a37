package rapier.vertx.zioeffect

import io.vertx.core.Vertx
import rapier.server.{ServerBuilder, ServerEndpoint}
import rapier.vertx.{VertxServer, VertxServerOptions}
import rapier.zioeffect.{ZioRunner, zioMonad}
import zio.{RIO, Scope, Task, ZIO}

/**
 * A Rapier server on Vert.x for endpoints whose logic is ZIO (a `Task`, or an `RIO[R, *]` that needs `R` from the
 * environment; see [[rapier.zioeffect.zServerLogic]] for logic in `ZIO[R, E, O]`), started within a `Scope`: bound
 * when `start()` runs, stopped gracefully when the scope closes (the fibers still running past the shutdown timeout,
 * response streams' and WebSocket pipes' included, are interrupted and waited for, at most as long again). It runs on
 * the given `Vertx`, or on one of its own (closed with the server).
 *
 * {{{
 * ZIO.scoped(VertxZioServer().withPort(8080).addEndpoint(hello).start() *> ZIO.never)
 * ZIO.scoped(VertxZioServer.needing[Db].addEndpoint(users).start() *> ZIO.never).provide(Db.live)
 * }}}
 *
 * Logic that answers at once is run on the request's event loop, with no hop to another thread; see
 * [[rapier.zioeffect.ZioRunner]]. The fibers run on the runtime of the effect that starts the server, in its
 * environment.
 */
final class VertxZioServer[R] private (
    val endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
    val options: VertxServerOptions,
    val vertx: Option[Vertx]
) extends ServerBuilder[[A] =>> RIO[R, A], VertxServerOptions, VertxZioServer[R]]:
  type Started = ZIO[R & Scope, Throwable, VertxServer.Binding]

  protected def copyWith(
      endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
      options: VertxServerOptions
  ): VertxZioServer[R] =
    new VertxZioServer(endpoints, options, vertx)

  /** Runs on `v` rather than on a Vert.x of the server's own. */
  def withVertx(v: Vertx): VertxZioServer[R] = new VertxZioServer(endpoints, options, Some(v))

  def start(): ZIO[R & Scope, Throwable, VertxServer.Binding] =
    ZioRunner.serve[R, VertxServer.Binding](options.shutdownTimeout)(VertxServer.bind(endpoints, options, vertx))

object VertxZioServer:
  /** A server for endpoints whose logic is a `Task`. */
  def apply(
      endpoints: List[ServerEndpoint[Task]] = Nil,
      options: VertxServerOptions = VertxServerOptions.default,
      vertx: Option[Vertx] = None
  ): VertxZioServer[Any] = new VertxZioServer(endpoints, options, vertx)

  /**
   * A server for endpoints whose logic needs `R` from the environment (those that need less join them with
   * [[rapier.zioeffect.widen]]); its `start()` needs `R` too.
   */
  def needing[R]: VertxZioServer[R] = new VertxZioServer(Nil, VertxServerOptions.default, None)
