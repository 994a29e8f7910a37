package rapier.vertx.zioeffect

import io.vertx.core.Vertx
import rapier.server.spi.Runner
import rapier.server.{ServerBuilder, ServerEndpoint}
import rapier.vertx.{VertxServer, VertxServerOptions}
import rapier.zioeffect.{ZioRunner, zioMonad}
import zio.{Scope, Task, ZIO}

/**
 * A Rapier server on Vert.x for endpoints whose logic is a ZIO `Task` (see [[rapier.zioeffect.zServerLogic]] for
 * logic in `ZIO[Any, E, O]`), started within a `Scope`: bound when `start()` runs, stopped gracefully when the scope
 * closes (the fibers still running past the shutdown timeout are interrupted and waited for, at most as long again).
 * It runs on the given `Vertx`, or on one of its own (closed with the server).
 *
 * {{{
 * ZIO.scoped(VertxZioServer().withPort(8080).addEndpoint(hello).start() *> ZIO.never)
 * }}}
 *
 * Logic that answers at once is run on the request's event loop, with no hop to another thread; see
 * [[rapier.zioeffect.ZioRunner]]. The fibers run on the runtime of the effect that starts the server.
 */
final case class VertxZioServer(
    endpoints: List[ServerEndpoint[Task]] = Nil,
    options: VertxServerOptions = VertxServerOptions.default,
    vertx: Option[Vertx] = None
) extends ServerBuilder[Task, VertxServerOptions, VertxZioServer]:
  type Started = ZIO[Scope, Throwable, VertxServer.Binding]

  protected def copyWith(endpoints: List[ServerEndpoint[Task]], options: VertxServerOptions): VertxZioServer =
    copy(endpoints = endpoints, options = options)

  /** Runs on `v` rather than on a Vert.x of the server's own. */
  def withVertx(v: Vertx): VertxZioServer = copy(vertx = Some(v))

  def start(): ZIO[Scope, Throwable, VertxServer.Binding] =
    ZioRunner.scoped(options.shutdownTimeout).flatMap { runner =>
      given Runner[Task] = runner
      ZIO.acquireRelease(ZIO.attemptBlocking(VertxServer.bind(endpoints, options, vertx)))(binding =>
        ZIO.attemptBlocking(binding.stop()).ignoreLogged
      )
    }
