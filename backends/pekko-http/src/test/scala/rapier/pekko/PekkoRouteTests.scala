package rapier.pekko

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.server.Directives as D
import org.apache.pekko.http.scaladsl.server.RouteConcatenation.*
import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.{Sink, Source}
import org.apache.pekko.util.ByteString
import rapier.*
import rapier.server.*
import rapier.server.spi.BodySource

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/** Rapier's endpoints as a pekko-http route, concatenated with an application's own directives on pekko-http's server. */
class PekkoRouteTests extends munit.FunSuite:
  private given system: ActorSystem = ActorSystem("rapier-pekko-route-tests")
  private given Materializer = Materializer.matFromSystem
  private val client = HttpClient.newHttpClient()

  override def afterAll(): Unit = Await.ready(system.terminate(), 10.seconds)

  private val hello: ServerEndpoint[Future] =
    endpoint.get.in("hello" / path[String]("name")).out(stringBody).serverLogicSuccess(n =>
      Future.successful(s"hello $n")
    )
  private val pulled = AtomicInteger()
  private val count: ServerEndpoint[Future] =
    endpoint.post.in("count").in(pekkoSourceBody).out(stringBody).serverLogicSuccess { body =>
      body.map { chunk => pulled.incrementAndGet(); chunk.length.toLong }.runWith(Sink.fold(0L)(_ + _)).map(_.toString)(
        using ExecutionContext.parasitic
      )
    }
  private val echo: ServerEndpoint[Future] =
    endpoint.post.in("echo").in(pekkoSourceBody).out(pekkoSourceBody).serverLogicSuccess(Future.successful)

  // Whether the application's own route read the body Rapier's route let through
  private val ownRead = AtomicBoolean()

  private def withServer[A](test: Int => A): A =
    val route = PekkoServerInterpreter(List(hello, count, echo)).route ~
      D.path("mine")(D.get(D.complete("mine"))) ~
      D.pathPrefix("hello") {
        D.post(D.entity(D.as[String]) { body =>
          ownRead.set(body == "x")
          D.complete("posted to mine")
        })
      }
    val binding = Await.result(Http().newServerAt("127.0.0.1", 0).bind(route), 10.seconds)
    try test(binding.localAddress.getPort)
    finally Await.ready(binding.terminate(2.seconds), 5.seconds)

  private def send(port: Int, method: String, path: String, body: String = ""): (Int, String) =
    val publisher =
      if body.isEmpty then HttpRequest.BodyPublishers.noBody() else HttpRequest.BodyPublishers.ofString(body)
    val request = HttpRequest.newBuilder(URI.create(s"http://127.0.0.1:$port$path")).method(method, publisher).build()
    val response = client.send(request, HttpResponse.BodyHandlers.ofString())
    (response.statusCode, response.body)

  test("PekkoServer on a given actor system warns at start if the system hands the parser more than 4 KiB at a time"):
    val warning = PekkoServer.readSizeWarning("app", system.settings.config)
    assert(warning.exists(_.contains("pekko.io.tcp.max-received-message-size = 4k")), warning)
    for size <- List("4k", "1k") do
      val config = com.typesafe.config.ConfigFactory.parseString(s"pekko.io.tcp.max-received-message-size = $size")
      assertEquals(PekkoServer.readSizeWarning("app", config.withFallback(system.settings.config)), None, size)
    val big = com.typesafe.config.ConfigFactory.parseString("pekko.io.tcp.max-received-message-size = 16k")
    assert(PekkoServer.readSizeWarning("app", big.withFallback(system.settings.config)).isDefined)

  test("a request an endpoint takes is answered by it; others fall through to the routes after, their bodies unread"):
    withServer { port =>
      assertEquals(send(port, "GET", "/hello/ada"), (200, "hello ada"))
      assertEquals(send(port, "GET", "/mine"), (200, "mine"))
      // The method doesn't match Rapier's endpoint: the application's route takes it, and reads the body itself
      assertEquals(send(port, "POST", "/hello/ada", "x"), (200, "posted to mine"))
      assert(ownRead.get, "the application's route read the body whole")
      assertEquals(send(port, "GET", "/nowhere")._1, 404)
    }

  test("a pekko Source body reaches the logic as the entity's own stream, and a response's goes back as it is"):
    withServer { port =>
      val body = "0123456789" * 100000
      pulled.set(0)
      assertEquals(send(port, "POST", "/count", body), (200, body.length.toString))
      assert(pulled.get > 0)
      assertEquals(send(port, "POST", "/echo", body), (200, body))
    }

  test("every request through the handler gets Rapier's answer, a rejection included"):
    val handler = PekkoServerInterpreter(List(hello)).handler
    val binding = Await.result(Http().newServerAt("127.0.0.1", 0).bind(handler), 10.seconds)
    try
      val port = binding.localAddress.getPort
      assertEquals(send(port, "POST", "/hello/ada")._1, 405)
      assertEquals(send(port, "GET", "/hello/ada"), (200, "hello ada"))
    finally Await.ready(binding.terminate(2.seconds), 5.seconds)

  test("on another backend, a pekko Source body is read one pull per chunk, and a response's source run when pulled"):
    val bytes = Array.tabulate[Byte](1000)(_.toByte)
    val kind = PekkoSourceBody()
    val read = Await.result(kind.read(BodySource.of(bytes)).runWith(Sink.fold(ByteString.empty)(_ ++ _)), 5.seconds)
    assertEquals(read, ByteString(bytes))
    val started = kind.write(Source(List(ByteString(1, 2), ByteString.empty, ByteString(3))))
    val received = Await.result(kind.read(started.source).runWith(Sink.seq), 5.seconds)
    // An empty chunk of the logic's never reaches the backend: a pull is answered with a byte at least
    assertEquals(received, Seq(ByteString(1, 2), ByteString(3)))
