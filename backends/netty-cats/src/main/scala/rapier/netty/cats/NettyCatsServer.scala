package rapier.netty.cats

import cats.effect.{Async, Resource}
import rapier.cats.{CatsRunner, catsMonad}
import rapier.netty.{NettyServer, NettyServerOptions}
import rapier.server.spi.Runner
import rapier.server.{ServerBuilder, ServerEndpoint}

/**
 * A Rapier server on Netty for endpoints whose logic is in `F[_]: Async` — cats-effect's `IO`, or any other — started
 * as a `Resource[F, Binding]`: bound when the resource is used, stopped gracefully (requests in progress finish,
 * within the shutdown timeout) when it is released.
 *
 * {{{
 * NettyCatsServer[IO]().withPort(8080).addEndpoint(hello).start().useForever
 * }}}
 *
 * `IO` logic that answers at once is run on the connection's event loop, with no hop to another thread; see
 * [[rapier.cats.CatsRunner]] for what that asks of the logic (nothing that blocks outside `IO.blocking`).
 */
final case class NettyCatsServer[F[_]](
    endpoints: List[ServerEndpoint[F]] = Nil,
    options: NettyServerOptions = NettyServerOptions.default
)(using F: Async[F])
    extends ServerBuilder[F, NettyServerOptions, NettyCatsServer[F]]:
  type Started = Resource[F, NettyServer.Binding]

  protected def copyWith(endpoints: List[ServerEndpoint[F]], options: NettyServerOptions): NettyCatsServer[F] =
    NettyCatsServer(endpoints, options)

  def start(): Resource[F, NettyServer.Binding] =
    // Released after the server: fibers still running once it has stopped are cancelled
    CatsRunner.resource[F](options.shutdownTimeout).flatMap { runner =>
      given Runner[F] = runner
      Resource.make(F.blocking(NettyServer.bind(endpoints, options)))(binding => F.blocking(binding.stop()))
    }
