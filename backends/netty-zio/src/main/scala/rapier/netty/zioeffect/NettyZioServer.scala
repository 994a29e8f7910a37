package rapier.netty.zioeffect

import rapier.netty.{NettyServer, NettyServerOptions}
import rapier.server.spi.Runner
import rapier.server.{ServerBuilder, ServerEndpoint}
import rapier.zioeffect.{ZioRunner, zioMonad}
import zio.{Scope, Task, ZIO}

/**
 * A Rapier server on Netty for endpoints whose logic is a ZIO `Task` (see [[rapier.zioeffect.zServerLogic]] for
 * logic in `ZIO[Any, E, O]`), started within a `Scope`: bound when `start()` runs, stopped gracefully when the scope
 * closes (requests in progress finish within the shutdown timeout; the connections still busy then are closed, their
 * fibers interrupted and waited for, their finalizers run, at most the shutdown timeout again).
 *
 * {{{
 * ZIO.scoped(NettyZioServer().withPort(8080).addEndpoint(hello).start() *> ZIO.never)
 * }}}
 *
 * Logic that answers at once is run on the connection's event loop, with no hop to another thread; see
 * [[rapier.zioeffect.ZioRunner]] for what that asks of the logic (nothing that blocks outside
 * `ZIO.attemptBlocking`). The fibers run on the runtime of the effect that starts the server.
 */
final case class NettyZioServer(
    endpoints: List[ServerEndpoint[Task]] = Nil,
    options: NettyServerOptions = NettyServerOptions.default
) extends ServerBuilder[Task, NettyServerOptions, NettyZioServer]:
  type Started = ZIO[Scope, Throwable, NettyServer.Binding]

  protected def copyWith(endpoints: List[ServerEndpoint[Task]], options: NettyServerOptions): NettyZioServer =
    NettyZioServer(endpoints, options)

  def start(): ZIO[Scope, Throwable, NettyServer.Binding] =
    ZioRunner.scoped(options.shutdownTimeout).flatMap { runner =>
      given Runner[Task] = runner
      ZIO.acquireRelease(ZIO.attemptBlocking(NettyServer.bind(endpoints, options)))(binding =>
        ZIO.attemptBlocking(binding.stop()).ignoreLogged
      )
    }
