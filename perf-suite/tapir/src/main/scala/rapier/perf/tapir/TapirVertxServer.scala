package rapier.perf.tapir

import io.vertx.core.http.{HttpServer, HttpServerOptions}
import io.vertx.core.{Vertx, VertxOptions}
import io.vertx.ext.web.Router
import rapier.perf.common.{PerfServer, ServerConfig}
import sttp.tapir.server.vertx.{VertxFutureServerInterpreter, VertxFutureServerOptions}

import java.util.concurrent.TimeUnit

/**
 * The suite's endpoints (the same values as [[TapirNettyServer]]'s) on Tapir's Vert.x Future interpreter, mounted on
 * a vertx-web `Router` as Tapir's documentation shows: one route per endpoint. Vert.x and Tapir defaults except for
 * the number of event loop threads. The Tapir variant turns the server log off; TapirLog keeps Tapir's default server
 * log, which goes to Vert.x's logging (java.util.logging here, at its default INFO level, below which Tapir logs
 * handled requests): nothing is written.
 */
final class TapirVertxServer extends PerfServer:
  private var vertx: Vertx | Null = null
  private var server: HttpServer | Null = null

  def start(config: ServerConfig): Int =
    val v = Vertx.vertx(VertxOptions().setEventLoopPoolSize(config.threads))
    vertx = v
    val options =
      if config.requestLog then VertxFutureServerOptions.default
      else VertxFutureServerOptions.customiseInterceptors.serverLog(None).options
    val interpreter = VertxFutureServerInterpreter(options)
    val router = Router.router(v)
    for n <- 0 until config.routes; e <- TapirNettyServer.endpoints(n) do interpreter.route(e)(router)
    val s = v.createHttpServer(HttpServerOptions().setHost("0.0.0.0").setPort(config.port)).requestHandler(router)
    s.listen().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
    server = s
    s.actualPort

  def stop(): Unit =
    if server != null then server.nn.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
    if vertx != null then vertx.nn.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
