package rapier.vertx

import io.vertx.core.Vertx
import io.vertx.ext.web.handler.BodyHandler
import io.vertx.ext.web.{Router, RoutingContext}
import rapier.server.spi.Admission
import rapier.*
import rapier.server.*
import rapier.testkit.*
import rapier.vertx.internal.Connections

import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.Future

/** Rapier mounted on a vertx-web Router among an application's own routes, through the public `routeHandler`. */
class RouterMountTest extends munit.FunSuite:
  LeakDetection.install()

  private val item = endpoint.get.in("items" / path[Int]("id")).out(stringBody)
  private val upload = endpoint.post.in("upload").in(byteArrayBody).out(stringBody)
  private val served = AtomicInteger()
  private val endpoints: List[ServerEndpoint[Future]] = List(
    item.serverLogicSuccess { id =>
      served.incrementAndGet()
      Future.successful(s"item $id")
    },
    upload.serverLogicSuccess { bytes =>
      served.incrementAndGet()
      Future.successful(s"${bytes.length} bytes, ${bytes.map(_.toInt).sum} sum")
    }
  )

  private def text(ctx: RoutingContext, body: String): Unit =
    ctx.response.putHeader("Content-Type", "text/plain").end(body)

  /** A router as an application would have it, with `before` routes ahead of the mount and its own routes after. */
  private def withRouter[T](options: VertxServerOptions = VertxServerOptions.default)(before: Router => Unit)(
      f: TestClient => T
  ): T =
    val vertx = Vertx.vertx()
    try
      val router = Router.router(vertx)
      router.get("/health").handler(ctx => text(ctx, "app: healthy"))
      before(router)
      router.route().handler(VertxServerInterpreter(options).routeHandler(endpoints))
      router.delete("/items/:id").handler(ctx => text(ctx, s"app: deleted ${ctx.pathParam("id")}"))
      router.post("/app/echo").handler(BodyHandler.create()).handler(ctx => text(ctx, s"app: ${ctx.body.asString}"))
      val server = vertx.createHttpServer().requestHandler(router)
      server.listen(0).toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
      f(TestClient(server.actualPort))
    finally vertx.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)

  private def bytes(n: Int): Array[Byte] = Array.tabulate(n)(i => (i % 7).toByte)
  private def summary(n: Int): String = s"$n bytes, ${bytes(n).map(_.toInt).sum} sum"

  test("the mount serves its endpoints, and the application's routes before and after it serve theirs"):
    withRouter()(_ => ()) { c =>
      assertEquals(c.get("/items/7").body, "item 7")
      assertEquals(c.post("/upload", bytes(100_000)).body, summary(100_000))
      assertEquals(c.get("/health").body, "app: healthy")
      // Passed on with its body unread: the application's BodyHandler gets all of it.
      assertEquals(c.post("/app/echo", "a body Rapier never read").body, "app: a body Rapier never read")
    }

  test("a path Rapier has, with a method it hasn't, goes on to the application's route for that method"):
    withRouter()(_ => ()) { c =>
      assertEquals(c.send("DELETE", "/items/3", null).body, "app: deleted 3")
      assertEquals(c.get("/items/3").body, "item 3")
    }

  test("what neither Rapier nor the application serves gets vertx-web's own 404; a bad capture is Rapier's 400"):
    withRouter()(_ => ()) { c =>
      val before = served.get
      assertEquals(c.get("/nowhere").status, 404)
      // Routing is by path shape: the path is Rapier's, and its decoding failure is answered by Rapier.
      val bad = c.get("/items/not-a-number")
      assertEquals(bad.status, 400)
      assert(bad.body.contains("id"), bad.body)
      assertEquals(served.get, before)
    }

  test("a body read by a BodyHandler before the mount is used as it is, and Rapier's limit still holds"):
    val options = VertxServerOptions.default.withMaxBodySize(1000)
    withRouter(options)(_.route().handler(BodyHandler.create().setBodyLimit(1_000_000))) { c =>
      assertEquals(c.post("/upload", bytes(1000)).body, summary(1000))
      assertEquals(c.post("/upload", Array.emptyByteArray).body, "0 bytes, 0 sum")
      val tooLarge = c.post("/upload", bytes(1001))
      assertEquals(tooLarge.status, 413, tooLarge.body)
      assertEquals(c.post("/app/echo", "after").body, "app: after")
    }

  test("a route before the mount that pauses the request for its own work loses none of the body"):
    withRouter() { router =>
      router.route().handler { ctx =>
        ctx.request.pause()
        ctx.vertx.setTimer(50, _ => ctx.next())
      }
    } { c =>
      assertEquals(c.post("/upload", bytes(300_000)).body, summary(300_000))
      // Without a body, one after the other on the connection: each request's end comes through.
      for id <- 1 to 3 do assertEquals(c.get(s"/items/$id").body, s"item $id")
      assertEquals(c.post("/upload", bytes(10)).body, summary(10))
    }

  test("a body consumed before the mount by something other than a BodyHandler is the application's 500, no trace"):
    withRouter()(_.route().handler(ctx => ctx.request.body.onComplete(_ => ctx.next()))) { c =>
      val response = c.post("/upload", bytes(10))
      assertEquals(response.status, 500)
      assert(!response.body.contains("Exception"), response.body)
      assertEquals(c.get("/items/1").body, "item 1")
    }

  test("connections refused by the mount are forgotten once closed"):
    val vertx = Vertx.vertx()
    try
      val options = VertxServerOptions.default.modifyServerOptions(_.withoutRequestLog)
      val connections = Connections(Admission(options.backend))
      val handler = VertxServerInterpreter(options).handler(endpoints, connections)
      val router = Router.router(vertx)
      router.route().handler(ctx => handler.route(ctx))
      val server = vertx.createHttpServer().requestHandler(router)
      server.listen(0).toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
      for _ <- 1 to 20 do
        // A fragment in the target: routed to an endpoint, then refused by Rapier's own checks.
        val response = RawHttp.exchange(server.actualPort, "GET /items/1#part HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals((response.status, response.header("Content-Type")), (400, Some("application/problem+json")))
      val deadline = System.nanoTime + 5_000_000_000L
      while connections.refusedCount > 0 && System.nanoTime < deadline do Thread.sleep(20)
      assertEquals(connections.refusedCount, 0)
    finally vertx.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)

  test("mounted under a prefix, the endpoints match the full request path"):
    val vertx = Vertx.vertx()
    try
      val api = endpoint.get.in("api" / "ping").out(stringBody).serverLogicSuccess(_ => Future.successful("pong"))
      val router = Router.router(vertx)
      router.route("/api/*").handler(VertxServerInterpreter().routeHandler(List(api)))
      router.get("/ping").handler(ctx => text(ctx, "app: ping"))
      val server = vertx.createHttpServer().requestHandler(router)
      server.listen(0).toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
      val c = TestClient(server.actualPort)
      assertEquals(c.get("/api/ping").body, "pong")
      assertEquals(c.get("/ping").body, "app: ping")
      assertEquals(c.get("/api/other").status, 404)
    finally vertx.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
