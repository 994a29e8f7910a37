package rapier.perf.tapir

import io.vertx.core.http.{HttpServerOptions, HttpServerRequest}
import io.vertx.core.{Handler, Vertx}
import io.vertx.ext.web.Router
import rapier.perf.common.ServerConfig
import rapier.perf.vanilla.HttpServerPerfServer
import sttp.tapir.server.vertx.{VertxFutureServerInterpreter, VertxFutureServerOptions}

/**
 * The suite's endpoints (the same values as [[TapirNettyServer]]'s, body limits included) on Tapir's Vert.x Future
 * interpreter, mounted on one vertx-web `Router` as Tapir's documentation and its performance harness (perf-tests,
 * `Vertx.scala`) mount them: `interpreter.route(endpoint)(router)` for each endpoint. Vert.x and Tapir defaults except
 * for the number of event loop threads. The Tapir variant turns the server log off; TapirLog keeps Tapir's default server
 * log, which goes to Vert.x's logging (java.util.logging here, at its default INFO level, below which Tapir logs
 * handled requests): nothing is written.
 */
final class TapirVertxServer extends HttpServerPerfServer:
  protected def serve(vertx: Vertx, config: ServerConfig): (HttpServerOptions, Handler[HttpServerRequest]) =
    val options =
      if config.requestLog then VertxFutureServerOptions.default
      else VertxFutureServerOptions.customiseInterceptors.serverLog(None).options
    val interpreter = VertxFutureServerInterpreter(options)
    val router = Router.router(vertx)
    for n <- 0 until config.routes; e <- TapirNettyServer.endpoints(n) do interpreter.route(e)(router)
    (HttpServerOptions(), router)
