package rapier.http4s

import cats.effect.IO
import cats.effect.unsafe.IORuntime
import cats.syntax.all.*
import fs2.Stream
import org.http4s.{HttpRoutes, Method as H4Method, Request, Uri}
import rapier.*
import rapier.cats.fs2Body
import rapier.server.*

import java.util.concurrent.atomic.AtomicBoolean

/**
 * Rapier's endpoints as http4s routes, mounted beside an application's own: called directly, with no server; WebSockets
 * on an Ember server of the application's.
 */
class Http4sRoutesTests extends munit.FunSuite:
  private given IORuntime = IORuntime.global

  private val hello: ServerEndpoint[IO] =
    endpoint.get.in("hello" / path[String]("name")).out(stringBody).serverLogicSuccess[IO](n => IO.pure(s"hello $n"))
  private val count: ServerEndpoint[IO] =
    endpoint.post.in("count").in(fs2Body[IO]).out(stringBody).serverLogicSuccess[IO] { body =>
      body.chunks.compile.fold(0L)(_ + _.size).map(_.toString)
    }
  private val echo: ServerEndpoint[IO] =
    endpoint.post.in("echo").in(fs2Body[IO]).out(fs2Body[IO]).serverLogicSuccess[IO](IO.pure)

  private def run(routes: HttpRoutes[IO], request: Request[IO]): (Int, String) =
    val response = routes.orNotFound.run(request).unsafeRunSync()
    (response.status.code, response.as[String].unsafeRunSync())

  test("a request an endpoint takes is answered by it; others fall through to the routes after, their bodies unread"):
    val read = AtomicBoolean()
    val routes = Http4sServerInterpreter[IO](List(hello)).routes <+> ApplicationRoutes(read)
    assertEquals(run(routes, Request[IO](uri = Uri.unsafeFromString("/hello/ada"))), (200, "hello ada"))
    assertEquals(run(routes, Request[IO](uri = Uri.unsafeFromString("/mine"))), (200, "mine"))
    // The method doesn't match Rapier's endpoint: the application's route takes it, and reads the body itself
    val body = Stream.emit[IO, Byte](1)
    assertEquals(
      run(routes, Request[IO](H4Method.POST, Uri.unsafeFromString("/hello/ada")).withBodyStream(body)),
      (200, "posted to mine")
    )
    assert(read.get)
    assertEquals(run(routes, Request[IO](uri = Uri.unsafeFromString("/nowhere"))), (404, "Not found"))

  test("a request no endpoint takes, through the app, gets Rapier's rejection"):
    val app = Http4sServerInterpreter[IO](List(hello)).app
    assertEquals(
      app.run(Request[IO](H4Method.POST, Uri.unsafeFromString("/hello/ada"))).unsafeRunSync().status.code,
      405
    )
    assertEquals(app.run(Request[IO](uri = Uri.unsafeFromString("/nowhere"))).unsafeRunSync().status.code, 404)

  test("an fs2 body reaches the logic as http4s's own stream, unread, and runs once, as it is, when the logic runs it"):
    var evaluated = 0
    val body =
      Stream.emits[IO, Byte](Array.fill[Byte](1000)(7).toSeq).chunkN(100).unchunks.evalTap(_ => IO(evaluated += 1))
    val untouched = endpoint.post.in("same").in(fs2Body[IO]).out(stringBody).serverLogicSuccess[IO] { _ =>
      IO.pure("not read")
    }
    val routes = Http4sServerInterpreter[IO](List(count, echo, untouched)).routes
    assertEquals(
      run(routes, Request[IO](H4Method.POST, Uri.unsafeFromString("/same")).withBodyStream(body)),
      (200, "not read")
    )
    assertEquals(evaluated, 0, "nothing ran the stream on its way to the logic")
    assertEquals(
      run(routes, Request[IO](H4Method.POST, Uri.unsafeFromString("/count")).withBodyStream(body)),
      (200, "1000")
    )
    assertEquals(evaluated, 1000, "the request's stream ran once, as it is")
    val echoed = routes.orNotFound.run(Request[IO](
      H4Method.POST,
      Uri.unsafeFromString("/echo")
    ).withBodyStream(body)).unsafeRunSync()
    assertEquals(echoed.body.compile.count.unsafeRunSync(), 1000L)

  test("WebSocket endpoints need the server's WebSocketBuilder2: routes(webSockets) upgrades, routes refuses at once"):
    val shout = endpoint.get.in("shout").out(webSocketBody[String, String]).serverLogicSuccess[IO] { _ =>
      IO.pure(WebSocketPipe.map[String, String](_.toUpperCase))
    }
    val interpreter = Http4sServerInterpreter[IO](List(shout, hello))
    val refused = intercept[IllegalStateException](interpreter.routes)
    assert(refused.getMessage.contains("routes(webSockets)"), refused.getMessage)
    intercept[IllegalStateException](interpreter.app)
    val ember = org.http4s.ember.server.EmberServerBuilder
      .default[IO]
      .withPort(com.comcast.ip4s.Port.fromInt(0).get)
      .withHttpWebSocketApp(webSockets =>
        (interpreter.routes(webSockets) <+> ApplicationRoutes(AtomicBoolean())).orNotFound
      )
      .build
    ember.use { server =>
      IO.blocking {
        import rapier.testkit.WebSocketFrames.*
        val c = rapier.testkit.RawHttp(server.address.getPort)
        try
          assertEquals(c.send(handshake("/shout")).readResponse(head = true).status, 101)
          c.send(frame(Text, "hi"))
          assertEquals(readFrame(c).text, "HI")
        finally c.close()
        assertEquals(
          rapier.testkit.RawHttp.exchange(server.address.getPort, "GET /mine HTTP/1.1\r\nHost: x\r\n\r\n").body,
          "mine"
        )
      }
    }.unsafeRunSync()

/** An application's own routes, written with http4s's DSL. */
private object ApplicationRoutes:
  import org.http4s.dsl.io.*

  def apply(bodyRead: AtomicBoolean): HttpRoutes[IO] = HttpRoutes.of[IO] {
    case GET -> Root / "mine" => Ok("mine")
    case req @ POST -> Root / "hello" / _ =>
      req.body.compile.drain.flatMap(_ => IO(bodyRead.set(true))) >> Ok("posted to mine")
  }
