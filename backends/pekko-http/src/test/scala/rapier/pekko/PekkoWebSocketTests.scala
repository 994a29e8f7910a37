package rapier.pekko

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import rapier.*
import rapier.server.*
import rapier.testkit.*
import rapier.testkit.WebSocketFrames.*

import scala.concurrent.duration.DurationInt
import scala.concurrent.{Await, Future}

/**
 * Rapier's WebSockets as a route on an application's own pekko-http server, where no guard of Rapier's sees the
 * connection's bytes: a close of Rapier's with a code pekko-http can't send goes out as 1011, and the connection ends
 * all the same. (On `PekkoServer` the kit's `WebSocketTests` check the codes meant.)
 */
class PekkoWebSocketTests extends munit.FunSuite:
  private given system: ActorSystem = ActorSystem("rapier-pekko-websocket-tests")

  override def afterAll(): Unit = Await.ready(system.terminate(), 10.seconds)

  private val small = endpoint.get
    .in("ws" / "small")
    .out(webSocketBody[String, String].withMaxMessageSize(1024).withIdleTimeout(300.millis))
    .serverLogicSuccess(_ => Future.successful(in => in))

  private def withRoute[A](test: (Int, PekkoServerInterpreter) => A): A =
    val interpreter = PekkoServerInterpreter(List(small))
    val binding = Await.result(Http().newServerAt("127.0.0.1", 0).bind(interpreter.route), 10.seconds)
    try test(binding.localAddress.getPort, interpreter)
    finally Await.ready(binding.terminate(2.seconds), 5.seconds)

  private def opened(port: Int): RawHttp =
    val c = RawHttp(port)
    assertEquals(c.send(handshake("/ws/small")).readResponse(head = true).status, 101)
    c

  /** The server's close, then the end of the connection. */
  private def closedWith1011(c: RawHttp, what: String): Unit =
    val closing = readFrame(c)
    assertEquals((closing.opcode, closing.closeCode), (Close, 1011), what)
    c.send(frame(Close, closePayload(1011, "")))
    assert(c.closedByServer(4000), what)

  test("a close of Rapier's with a code other than 1000 goes out as 1011, and the connection ends"):
    withRoute { (port, _) =>
      def refused(what: String, frames: Array[Byte]*): Unit =
        val c = opened(port)
        try
          frames.foreach(c.send)
          closedWith1011(c, what)
        finally c.close()
      refused("a binary message where text is taken", frame(Binary, "hi"))
      refused("fragments over the limit", frame(Text, "x" * 800, fin = false), frame(Continuation, "x" * 800))
      refused("idle past the timeout")
      val c = opened(port)
      try
        c.send(frame(Text, "x" * 600, fin = false)).send(frame(Continuation, "y" * 424))
        assertEquals(readFrame(c).text, "x" * 600 + "y" * 424, "fragments of the limit's length are joined")
      finally c.close()
    }

  test("closeWebSockets closes the route's WebSockets (with 1011, for 1001) before the application ends them"):
    withRoute { (port, interpreter) =>
      val c = opened(port)
      try
        c.send(frame(Text, "hi"))
        assertEquals(readFrame(c).text, "hi")
        val closing = interpreter.closeWebSockets()
        closedWith1011(c, "stopping")
        Await.result(closing, 20.seconds)
      finally c.close()
    }
