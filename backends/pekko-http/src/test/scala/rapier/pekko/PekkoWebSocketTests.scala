package rapier.pekko

import rapier.*
import rapier.server.*
import rapier.testkit.*
import rapier.testkit.WebSocketFrames.*

import scala.concurrent.Future
import scala.concurrent.duration.DurationInt

/**
 * What pekko-http's WebSockets do where the kit's `WebSocketTests` are declared unsupported: the closes of Rapier's
 * with a code pekko-http can't send go out as 1011, and the connection ends all the same.
 */
class PekkoWebSocketTests extends ServerTestSupport:
  def server: TestServer = PekkoTestServer()

  private val small = endpoint.get
    .in("ws" / "small")
    .out(webSocketBody[String, String].withMaxMessageSize(1024).withIdleTimeout(300.millis))
    .serverLogicSuccess(_ => Future.successful(in => in))

  /** The server's close, then the end of the connection. */
  private def closedWith1011(c: RawHttp, what: String): Unit =
    val closing = readFrame(c)
    assertEquals((closing.opcode, closing.closeCode), (Close, 1011), what)
    c.send(frame(Close, closePayload(1011, "")))
    assert(c.closedByServer(4000), what)

  test("a close of Rapier's with a code other than 1000 goes out as 1011, and the connection ends"):
    withServer(small) { t =>
      def refused(what: String, frames: Array[Byte]*): Unit =
        val c = t.raw()
        try
          assertEquals(c.send(handshake("/ws/small")).readResponse(head = true).status, 101)
          frames.foreach(c.send)
          closedWith1011(c, what)
        finally c.close()
      refused("a binary message where text is taken", frame(Binary, "hi"))
      refused("one frame over the limit", frame(Text, "x" * 2000))
      refused("fragments over the limit", frame(Text, "x" * 800, fin = false), frame(Continuation, "x" * 800))
      refused("idle past the timeout")
      val c = t.raw()
      try
        assertEquals(c.send(handshake("/ws/small")).readResponse(head = true).status, 101)
        c.send(frame(Text, "x" * 600, fin = false)).send(frame(Continuation, "y" * 424))
        assertEquals(readFrame(c).text, "x" * 600 + "y" * 424, "fragments of the limit's length are joined")
      finally c.close()
    }

  test("stopping the server closes its WebSockets (with 1011, for 1001), before pekko-http ends their connections"):
    withServer(small) { t =>
      val c = t.raw()
      try
        assertEquals(c.send(handshake("/ws/small")).readResponse(head = true).status, 101)
        c.send(frame(Text, "hi"))
        assertEquals(readFrame(c).text, "hi")
        val stopping = Future(t.stop())(using scala.concurrent.ExecutionContext.global)
        closedWith1011(c, "stopping")
        scala.concurrent.Await.result(stopping, 20.seconds)
      finally c.close()
    }
