package rapier.vertx.cats

import cats.effect.{Async, Resource}
import io.vertx.core.Vertx
import rapier.cats.{CatsRunner, catsMonad}
import rapier.server.spi.Runner
import rapier.server.{ServerBuilder, ServerEndpoint}
import rapier.vertx.{VertxServer, VertxServerOptions}

/**
 * A Rapier server on Vert.x for endpoints whose logic is in `F[_]: Async` — cats-effect's `IO`, or any other — started
 * as a `Resource[F, Binding]`: bound when the resource is used, stopped gracefully when it is released. It runs on the
 * given `Vertx`, or on one of its own (closed with the server).
 *
 * {{{
 * VertxCatsServer[IO]().withPort(8080).addEndpoint(hello).start().useForever
 * }}}
 *
 * `IO` logic that answers at once is run on the request's event loop, with no hop to another thread; see
 * [[rapier.cats.CatsRunner]].
 */
final case class VertxCatsServer[F[_]](
    endpoints: List[ServerEndpoint[F]] = Nil,
    options: VertxServerOptions = VertxServerOptions.default,
    vertx: Option[Vertx] = None
)(using F: Async[F])
    extends ServerBuilder[F, VertxServerOptions, VertxCatsServer[F]]:
  type Started = Resource[F, VertxServer.Binding]

  protected def copyWith(endpoints: List[ServerEndpoint[F]], options: VertxServerOptions): VertxCatsServer[F] =
    copy(endpoints = endpoints, options = options)

  /** Runs on `v` rather than on a Vert.x of the server's own. */
  def withVertx(v: Vertx): VertxCatsServer[F] = copy(vertx = Some(v))

  def start(): Resource[F, VertxServer.Binding] =
    // Released after the server: fibers still running once it has stopped are cancelled
    CatsRunner.resource[F](options.shutdownTimeout).flatMap { runner =>
      given Runner[F] = runner
      Resource.make(F.blocking(VertxServer.bind(endpoints, options, vertx)))(binding => F.blocking(binding.stop()))
    }
