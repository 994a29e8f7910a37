package rapier.perf.vanilla

import io.vertx.core.http.{HttpServer, HttpServerOptions, HttpServerRequest}
import io.vertx.core.{Handler, Vertx, VertxOptions}
import rapier.perf.common.{PerfServer, ServerConfig}

import java.util.concurrent.TimeUnit

/**
 * A server of the suite on a Vert.x `HttpServer` of its own: a `Vertx` with one event loop per server thread, the
 * server listening on `0.0.0.0` and the configured port, both closed on stop. Subclasses give the server's options and
 * its request handler (a plain handler, or a vertx-web `Router`). Compiled on both sides, like the vanilla servers.
 */
abstract class HttpServerPerfServer extends PerfServer:
  private var vertx: Vertx | Null = null
  private var server: HttpServer | Null = null

  /** The options (host and port are set after) and the handler of the server, on `vertx`. */
  protected def serve(vertx: Vertx, config: ServerConfig): (HttpServerOptions, Handler[HttpServerRequest])

  final def start(config: ServerConfig): Int =
    val v = Vertx.vertx(VertxOptions().setEventLoopPoolSize(config.threads))
    vertx = v
    val (options, handler) = serve(v, config)
    val s = v.createHttpServer(options.setHost("0.0.0.0").setPort(config.port)).requestHandler(handler)
    s.listen().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
    server = s
    s.actualPort

  /** One handler serves every request: a hand-written one, or one router holding every route. */
  def routeSets: Int = 1

  final def stop(): Unit =
    if server != null then server.nn.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
    if vertx != null then vertx.nn.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
    stopped()

  /** What to release once the server and its Vert.x are closed. */
  protected def stopped(): Unit = ()
