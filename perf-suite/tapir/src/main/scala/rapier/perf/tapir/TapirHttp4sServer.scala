package rapier.perf.tapir

import cats.effect.IO
import cats.effect.unsafe.IORuntime
import org.http4s.server.Router
import rapier.perf.common.{PerfServer, ServerConfig}
import rapier.perf.vanilla.VanillaHttp4sServer
import sttp.tapir.server.http4s.{Http4sServerInterpreter, Http4sServerOptions}

/**
 * The suite's endpoints on Tapir's http4s interpreter with `IO` logic, set up as Tapir's performance harness
 * (perf-tests, `Http4s.scala`) sets it up: every endpoint in one `toRoutes` call, mounted at `/` with http4s's
 * `Router`, on Ember with its defaults and the global `IORuntime`; the WebSocket study's endpoints in one
 * `toWebSocketRoutes` call, on the server's `WebSocketBuilder2`. The Tapir variant turns the server log off, TapirLog
 * keeps Tapir's default one.
 */
final class TapirHttp4sServer extends PerfServer:
  private var release: IO[Unit] | Null = null

  def start(config: ServerConfig): Int =
    val options =
      if config.requestLog then Http4sServerOptions.default[IO]
      else Http4sServerOptions.customiseInterceptors[IO].serverLog(None).options
    val interpreter = Http4sServerInterpreter[IO](options)
    val routes = interpreter.toRoutes((0 until config.routes).toList.flatMap(TapirCatsServer.endpoints))
    val webSockets = interpreter.toWebSocketRoutes(TapirCatsServer.webSockets)
    val ember = VanillaHttp4sServer.ember(Router("/" -> routes), config, webSockets)
    val (server, stop) = ember.allocated.unsafeRunSync()(using IORuntime.global)
    release = stop
    server.address.getPort

  /** One `toRoutes` call: Tapir routes among all the endpoints at once. */
  def routeSets: Int = 1

  def stop(): Unit = if release != null then release.nn.unsafeRunSync()(using IORuntime.global)
