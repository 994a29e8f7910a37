package rapier.perf.tapir

import cats.effect.std.Dispatcher
import cats.effect.unsafe.IORuntime
import cats.effect.{IO, Resource}
import io.vertx.core.http.{HttpServerOptions, HttpServerRequest}
import io.vertx.core.{Handler, Vertx}
import io.vertx.ext.web.Router
import rapier.perf.common.{PerfServer, ServerConfig}
import rapier.perf.vanilla.{HttpServerPerfServer, VanillaHttp4sServer}
import sttp.capabilities.WebSockets
import sttp.capabilities.fs2.Fs2Streams
import sttp.tapir.*
import sttp.tapir.server.ServerEndpoint
import sttp.tapir.server.netty.cats.{NettyCatsServer, NettyCatsServerOptions}
import sttp.tapir.server.vertx.cats.{VertxCatsServerInterpreter, VertxCatsServerOptions}

/** The suite's endpoints with `IO` logic, as a Tapir user writes them: `IO.pure` for what answers at once. */
object TapirCatsServer:
  def endpoints(n: Int): List[ServerEndpoint[Any, IO]] = TapirEndpoints(n, pure)

  private val pure: [A] => A => IO[A] = [A] => (a: A) => IO.pure(a)

  /**
   * The WebSocket study's two endpoints as Tapir writes them, fs2 pipes of text messages with Tapir's defaults: each
   * message written back, or answered on the next tick with the time then (the twin's clock).
   */
  val webSockets: List[ServerEndpoint[Fs2Streams[IO] & WebSockets, IO]] =
    def text = webSocketBody[String, CodecFormat.TextPlain, String, CodecFormat.TextPlain](Fs2Streams[IO])
    List(
      endpoint.get.in("ws" / "echo").out(text).serverLogicSuccess[IO](_ => IO.pure(in => in)),
      endpoint.get.in("ws" / "ts").out(text).serverLogicSuccess[IO] { _ =>
        IO.pure(_.evalMap(_ => VanillaHttp4sServer.nextStamp))
      }
    )

  /** A dispatcher for the server's whole life, as Tapir's cats servers take one, released at `stop`. */
  final class Held:
    private var release: IO[Unit] | Null = null

    def dispatcher(): Dispatcher[IO] =
      val (d, stop) = Dispatcher.parallel[IO].allocated.unsafeRunSync()(using IORuntime.global)
      release = stop
      d

    def releaseAll(): Unit = if release != null then release.nn.unsafeRunSync()(using IORuntime.global)

/**
 * The suite's endpoints on Tapir's Netty cats-effect server, set up as Tapir's performance harness (perf-tests,
 * `NettyCats.scala`) sets it up: every endpoint in one `addEndpoints` call (the WebSocket study's too), the server
 * started as a resource on the global `IORuntime`. Tapir's defaults otherwise, except for what every server of the
 * suite shares (event loop threads, the body limit on each endpoint); the Tapir variant turns the server log off,
 * TapirLog keeps Tapir's default one.
 */
final class TapirNettyCatsServer extends PerfServer:
  private val held = TapirCatsServer.Held()
  private var stopServer: IO[Unit] | Null = null
  private var routes = 0

  def start(config: ServerConfig): Int =
    val dispatcher = held.dispatcher()
    val options =
      if config.requestLog then NettyCatsServerOptions.default[IO](dispatcher)
      else NettyCatsServerOptions.customiseInterceptors[IO](dispatcher).serverLog(None).options
    val server = NettyCatsServer[IO](options, TapirNettyServer.nettyConfig(config))
      .addEndpoints((0 until config.routes).toList.flatMap(TapirCatsServer.endpoints) ++ TapirCatsServer.webSockets)
    routes = server.routes.size
    val started = Resource
      .make(server.start())(_.stop())
      .allocated
      .unsafeRunSync()(using IORuntime.global)
    stopServer = started._2
    started._1.port

  /** Each `addEndpoints` call is one route, which Tapir's Netty server tries in turn. */
  def routeSets: Int = routes

  def stop(): Unit =
    if stopServer != null then stopServer.nn.unsafeRunSync()(using IORuntime.global)
    held.releaseAll()

/**
 * The suite's endpoints on Tapir's Vert.x cats-effect interpreter, mounted on one vertx-web `Router` as Tapir's
 * harness (perf-tests, `VertxCats.scala`) mounts them, with a parallel `Dispatcher` for the server's life.
 */
final class TapirVertxCatsServer extends HttpServerPerfServer:
  private val held = TapirCatsServer.Held()

  protected def serve(vertx: Vertx, config: ServerConfig): (HttpServerOptions, Handler[HttpServerRequest]) =
    val dispatcher = held.dispatcher()
    val options =
      if config.requestLog then VertxCatsServerOptions.default[IO](dispatcher)
      else VertxCatsServerOptions.customiseInterceptors[IO](dispatcher).serverLog(None).options
    val interpreter = VertxCatsServerInterpreter[IO](options)
    val router = Router.router(vertx)
    for n <- 0 until config.routes; e <- TapirCatsServer.endpoints(n) do interpreter.route(e)(router)
    (HttpServerOptions(), router)

  override protected def stopped(): Unit = held.releaseAll()
