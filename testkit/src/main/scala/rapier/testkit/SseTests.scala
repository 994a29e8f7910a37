package rapier.testkit

import rapier.*
import rapier.server.*

import java.nio.charset.StandardCharsets
import java.util.concurrent.{Flow, SubmissionPublisher}
import scala.concurrent.Future
import scala.concurrent.duration.DurationInt

/** Server-Sent Events: events written as the stream carries them, each as it comes, and keep-alive comments. */
trait SseTests extends ServerTestSupport:
  import SseTests.*

  private val events = List(
    ServerSentEvent(data = Some("plain")),
    ServerSentEvent(data = Some("two\nlines"), event = Some("update"), id = Some("7")),
    ServerSentEvent(retry = Some(2500)),
    ServerSentEvent(data = Some(""), id = Some(""))
  )

  private val fixed =
    endpoint.get.in("sse" / "fixed").out(sseBody()).serverLogicSuccess(_ => Future.successful(Listed(events)))

  test("Server-Sent Events are written as text/event-stream, each field on its line, each event ending blank"):
    withServer(fixed) { t =>
      val r = t.get("/sse/fixed")
      assertEquals(r.status, 200)
      assertEquals(r.header("Content-Type"), Some("text/event-stream"))
      assertEquals(r.header("Cache-Control"), Some("no-cache"))
      assertEquals(
        r.body,
        "data: plain\n\n" +
          "event: update\nid: 7\ndata: two\ndata: lines\n\n" +
          "retry: 2500\n\n" +
          "id: \ndata: \n\n"
      )
    }

  /**
   * A live event stream on `/sse/live` with `keepAlive`, its first event read, then `idle` for the client's
   * `between` (what the idle stream sent), then its second event and its end: what came after the first.
   */
  private def liveStream(keepAlive: scala.concurrent.duration.Duration)(between: RawHttp => Unit): String =
    val live = SubmissionPublisher[ServerSentEvent]()
    val streamed = endpoint.get
      .in("sse" / "live")
      .out(sseBody(keepAlive))
      .serverLogicSuccess(_ => Future.successful(live))
    withServer(streamed) { t =>
      val c = t.raw()
      try
        c.send("GET /sse/live HTTP/1.1\r\nHost: x\r\n\r\n")
        eventually(live.hasSubscribers, "the event stream is subscribed to")
        live.submit(ServerSentEvent.data("first"))
        readUntil(c, "data: first\n\n") // before anything else is sent: the event was not held back
        between(c)
        live.submit(ServerSentEvent.data("second"))
        live.close()
        val rest = readUntil(c, "0\r\n\r\n")
        assert(rest.contains("data: second\n\n"), rest)
        rest
      finally c.close()
    }

  test("each event is sent as it comes, and an idle stream gets keep-alive comments until it ends"):
    liveStream(100.millis) { c =>
      val idle = readUntil(c, ":\n\n")
      assert(!idle.contains("data:"), idle)
    }

  test("without keep-alive (Duration.Inf), an idle stream gets no comment"):
    val rest = liveStream(scala.concurrent.duration.Duration.Inf)(_ => Thread.sleep(300))
    assert(!rest.contains(":\n\n"), rest)
    intercept[IllegalArgumentException](sseBody(keepAlive = scala.concurrent.duration.Duration.Zero))

  test("a client gone cancels the event stream"):
    val live = SubmissionPublisher[ServerSentEvent]()
    val streamed =
      endpoint.get.in("sse" / "gone").out(sseBody()).serverLogicSuccess(_ => Future.successful(live))
    withServer(streamed) { t =>
      val c = t.raw()
      c.send("GET /sse/gone HTTP/1.1\r\nHost: x\r\n\r\n")
      eventually(live.hasSubscribers, "the event stream is subscribed to")
      live.submit(ServerSentEvent.data("first"))
      readUntil(c, "data: first\n\n")
      c.close()
      // Writes after the client left fail, and the server lets the stream go
      eventually(
        { live.submit(ServerSentEvent.data("more")); !live.hasSubscribers },
        "the server cancelled the stream of a client gone"
      )
    }

object SseTests:
  /** Reads from `c` until `marker` has come; what came, marker included. */
  def readUntil(c: RawHttp, marker: String): String =
    val seen = StringBuilder()
    while !seen.endsWith(marker) do
      val b = c.readBytes(1)
      if b.isEmpty then throw java.io.EOFException(s"the connection closed before '$marker': $seen")
      seen.append(new String(b, StandardCharsets.ISO_8859_1))
    seen.toString

  /** A list of events, sent as they are asked for, then the end. */
  final class Listed[T](items: List[T]) extends Flow.Publisher[T]:
    def subscribe(s: Flow.Subscriber[? >: T]): Unit =
      var left = items
      var done = false
      s.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit = synchronized {
          var k = n
          while k > 0 && left.nonEmpty do
            s.onNext(left.head)
            left = left.tail
            k -= 1
          if left.isEmpty && !done then
            done = true
            s.onComplete()
        }
        def cancel(): Unit = synchronized { left = Nil; done = true })
