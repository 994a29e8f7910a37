package rapier.examples

import io.vertx.core.Vertx
import io.vertx.core.http.HttpServer
import io.vertx.ext.web.Router
import io.vertx.ext.web.handler.BodyHandler
import rapier.vertx.VertxServerInterpreter

import java.util.concurrent.TimeUnit

/**
 * An existing Vert.x application that takes Rapier in: its own routes stay as they are, and the books API joins them
 * as one route on the same `Router`. A request for a books endpoint is served by Rapier (routing, decoding,
 * validation, security, problem responses); any other goes on to the application's routes, its body untouched.
 *
 * Run it with `./sbt "examples/runMain rapier.examples.runVertxRouterApp"`, then `curl localhost:8080/books` and
 * `curl localhost:8080/status`.
 */
object VertxRouterApp:
  // start:mount
  /** The application's router, with the books API mounted between its own routes. */
  def router(vertx: Vertx, books: BooksServer): Router =
    val router = Router.router(vertx)
    // The application's routes, as they were.
    router.get("/status").handler(ctx => ctx.response.putHeader("Content-Type", "text/plain").end("up"))
    // Rapier's endpoints: one route, one handler, Rapier's own routing behind it.
    router.route().handler(VertxServerInterpreter().routeHandler(books.endpoints))
    // More of the application's routes: reached by every request the books API does not take.
    router.post("/feedback").handler(BodyHandler.create()).handler { ctx =>
      val thanks = s"thanks for ${ctx.body.length} bytes"
      ctx.response.setStatusCode(202).putHeader("Content-Type", "text/plain").end(thanks)
    }
    router
  // end:mount

  /** Starts the application's server on `port` (0 picks a free one). */
  def start(vertx: Vertx, port: Int, books: BooksServer = BooksServer()): HttpServer =
    vertx
      .createHttpServer()
      .requestHandler(router(vertx, books))
      .listen(port)
      .toCompletionStage
      .toCompletableFuture
      .get(30, TimeUnit.SECONDS)

  @main def runVertxRouterApp(args: String*): Unit =
    val port = CommandLine.port("runVertxRouterApp", args)
    val vertx = Vertx.vertx()
    val server = start(vertx, port)
    println(s"Try: curl http://localhost:${server.actualPort}/books   and   /status   (Ctrl-C stops)")
    val stop: Runnable = () => vertx.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
    Runtime.getRuntime.addShutdownHook(Thread(stop))
    Thread.currentThread.join()
