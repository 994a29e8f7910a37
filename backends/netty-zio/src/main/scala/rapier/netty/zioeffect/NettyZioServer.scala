package rapier.netty.zioeffect

import rapier.netty.{NettyServer, NettyServerOptions}
import rapier.server.{ServerBuilder, ServerEndpoint}
import rapier.zioeffect.{ZioRunner, zioMonad}
import zio.{RIO, Scope, Task, ZIO}

/**
 * A Rapier server on Netty for endpoints whose logic is ZIO (a `Task`, or an `RIO[R, *]` that needs `R` from the
 * environment; see [[rapier.zioeffect.zServerLogic]] for logic in `ZIO[R, E, O]`), started within a `Scope`: bound
 * when `start()` runs, stopped gracefully when the scope closes (requests in progress finish within the shutdown
 * timeout; the connections still busy then are closed, and their fibers — requests', response streams', WebSocket
 * pipes' — interrupted and waited for, their finalizers run, at most the shutdown timeout again).
 *
 * {{{
 * ZIO.scoped(NettyZioServer().withPort(8080).addEndpoint(hello).start() *> ZIO.never)
 * // logic that needs a `Db`: the server's start needs it too, and gives it to the logic
 * ZIO.scoped(NettyZioServer.needing[Db].addEndpoint(users).start() *> ZIO.never).provide(Db.live)
 * }}}
 *
 * Logic that answers at once is run on the connection's event loop, with no hop to another thread; see
 * [[rapier.zioeffect.ZioRunner]] for what that asks of the logic (nothing that blocks outside
 * `ZIO.attemptBlocking`). The fibers run on the runtime of the effect that starts the server, in its environment.
 */
final class NettyZioServer[R] private (
    val endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
    val options: NettyServerOptions
) extends ServerBuilder[[A] =>> RIO[R, A], NettyServerOptions, NettyZioServer[R]]:
  type Started = ZIO[R & Scope, Throwable, NettyServer.Binding]

  protected def copyWith(
      endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
      options: NettyServerOptions
  ): NettyZioServer[R] =
    new NettyZioServer(endpoints, options)

  def start(): ZIO[R & Scope, Throwable, NettyServer.Binding] =
    ZioRunner.serve[R, NettyServer.Binding](options.shutdownTimeout)(NettyServer.bind(endpoints, options))

object NettyZioServer:
  /** A server for endpoints whose logic is a `Task`. */
  def apply(
      endpoints: List[ServerEndpoint[Task]] = Nil,
      options: NettyServerOptions = NettyServerOptions.default
  ): NettyZioServer[Any] = new NettyZioServer(endpoints, options)

  /**
   * A server for endpoints whose logic needs `R` from the environment (those that need less join them with
   * [[rapier.zioeffect.widen]]); its `start()` needs `R` too.
   */
  def needing[R]: NettyZioServer[R] = new NettyZioServer(Nil, NettyServerOptions.default)
