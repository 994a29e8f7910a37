package rapier.testkit

import rapier.*
import rapier.server.*

import java.util.concurrent.Flow
import scala.concurrent.Future
import scala.concurrent.duration.DurationInt
import scala.jdk.CollectionConverters.*

/**
 * WebSockets (RFC 6455) with a raw client: the opening handshake and its refusals, messages echoed whole and in order,
 * the server's stream ending, limits and idle timeouts, back-pressure, a client going away, JSON messages and the
 * server stopping; and, through [[WebSocketProtocolTests]], every framing rule.
 */
trait WebSocketTests extends WebSocketProtocolTests:
  import WebSocketFrames.*
  import WebSocketTests.*

  private val three = endpoint.get
    .in("ws" / "three")
    .out(webSocketBody[String, String])
    .serverLogicSuccess(_ => Future.successful(_ => Three))
  private val idle = endpoint.get
    .in("ws" / "idle")
    .out(webSocketBody[String, String].withIdleTimeout(300.millis))
    .serverLogicSuccess(_ => Future.successful(in => in))
  private val secured = endpoint
    .securityIn(header[String]("X-Key"))
    .errorOut(statusCode(rapier.model.StatusCode.Unauthorized).and(stringBody))
    .get
    .in("ws" / "secured")
    .out(webSocketBody[String, String])
    .serverSecurityLogic(key => Future.successful(if key == "open" then Right(()) else Left("no")))
    .serverLogic((_, _) => Future.successful(Right(in => in)))

  test("the handshake is answered 101 with the key's accept value, then text messages are echoed in order"):
    withServer(echo) { t =>
      val c = t.raw()
      try
        val r = c.send(handshake("/ws/echo")).readResponse(head = true)
        assertEquals(r.status, 101)
        assertEquals(r.header("Sec-WebSocket-Accept"), Some(SampleAccept))
        assert(r.header("Upgrade").exists(_.equalsIgnoreCase("websocket")), r.toString)
        for i <- 1 to 20 do c.send(frame(Text, s"message $i"))
        for i <- 1 to 20 do assertEquals(readFrame(c).text, s"message $i")
        c.send(frame(Close, closePayload(1000, "bye")))
        closedWith(c, 1000)
        assert(c.closedByServer(2000), "the server closes the connection after the close handshake")
      finally c.close()
    }

  test("the server's stream ending closes the WebSocket with 1000 after its messages"):
    withServer(three) { t =>
      connected(t, "/ws/three") { c =>
        assertEquals(List.fill(3)(readFrame(c).text), List("one", "two", "three"))
        closedWith(c, 1000)
        c.send(frame(Close, closePayload(1000, "")))
        assert(c.closedByServer(2000))
      }
    }

  test("messages of 16 MiB are echoed where the endpoint's limit allows them, in one frame or many"):
    val big = endpoint.get
      .in("ws" / "big")
      .out(webSocketBody[Array[Byte], Array[Byte]].withMaxMessageSize(16 * 1024 * 1024))
      .serverLogicSuccess(_ => Future.successful(in => in))
    withServer(big) { t =>
      connected(t, "/ws/big") { c =>
        val payload = Array.tabulate[Byte](16 * 1024 * 1024)(i => (i * 7).toByte)
        c.send(frame(Binary, payload))
        val back = readFrame(c)
        assert(java.util.Arrays.equals(back.payload, payload), s"one frame: ${back.payload.length} bytes back")
        val parts = payload.grouped(64 * 1024).toList
        parts.zipWithIndex.foreach { (part, i) =>
          c.send(frame(if i == 0 then Binary else Continuation, part, fin = i == parts.length - 1))
        }
        val joined = readFrame(c)
        assert(
          java.util.Arrays.equals(joined.payload, payload),
          s"frames of 64 KiB: ${joined.payload.length} bytes back, opcode ${joined.opcode}"
        )
        // One frame of 1 MiB written a few bytes at a time
        frame(Binary, payload.take(1024 * 1024)).grouped(997).foreach(c.send)
        assert(java.util.Arrays.equals(readFrame(c).payload, payload.take(1024 * 1024)), "written in pieces")
      }
    }

  test("a WebSocket idle for its timeout is closed with 1001"):
    withServer(idle) { t =>
      connected(t, "/ws/idle") { c =>
        echoes(c, "hi")
        closedWith(c, 1001)
      }
    }

  test("the client's messages are read only as the logic asks for them"):
    val received = java.util.concurrent.atomic.AtomicInteger()
    // Asks for one message and no more
    val slow = endpoint.get.in("ws" / "slow").out(webSocketBody[Array[Byte], String]).serverLogicSuccess { _ =>
      Future.successful { in =>
        in.subscribe(subscriber(1, _ => received.incrementAndGet()))
        Silent(() => ())
      }
    }
    withServer(slow) { t =>
      val c = open(t, "/ws/slow")
      val sent = java.util.concurrent.atomic.AtomicInteger()
      val message = frame(Binary, new Array[Byte](64 * 1024))
      val writer = Thread(() =>
        try
          for _ <- 1 to 400 do
            c.send(message)
            sent.incrementAndGet()
        catch case _: java.io.IOException => ()
      )
      writer.setDaemon(true)
      writer.start()
      try
        eventually(received.get == 1, "the one message asked for arrives")
        Thread.sleep(500)
        assert(sent.get < 400, s"the client could send all of its 25 MB: the server read what no one asked for")
        assertEquals(received.get, 1)
      finally c.close()
    }

  test("a client that goes away cancels the server's stream, and completes the logic's stream of its messages"):
    val cancelled = java.util.concurrent.CountDownLatch(1)
    val completed = java.util.concurrent.CountDownLatch(1)
    val listening = endpoint.get.in("ws" / "listening").out(webSocketBody[String, String]).serverLogicSuccess { _ =>
      Future.successful { in =>
        in.subscribe(subscriber(Long.MaxValue, _ => (), () => completed.countDown()))
        Silent(() => cancelled.countDown())
      }
    }
    withServer(listening) { t =>
      val c = open(t, "/ws/listening")
      c.send(frame(Text, "hello"))
      c.close()
      assert(cancelled.await(5, java.util.concurrent.TimeUnit.SECONDS), "the server's stream is cancelled")
      assert(completed.await(5, java.util.concurrent.TimeUnit.SECONDS), "the client's stream is completed")
    }

  // RFC 6455 §5.5.1: a close ends the messages, it doesn't take back those sent before it. A server that reads ahead
  // of the logic holds some of them when the close comes, and must still hand them over.
  test("messages a client sends before its close reach the logic that reads them slowly, in order, then their end"):
    for leaves <- List(false, true) do
      val heard = java.util.concurrent.ConcurrentLinkedQueue[String]()
      val ended = java.util.concurrent.CountDownLatch(1)
      val slow = endpoint.get.in("ws" / "last-words").out(webSocketBody[String, String]).serverLogicSuccess { _ =>
        Future.successful { in =>
          in.subscribe(new Flow.Subscriber[String]:
            private var asking: Flow.Subscription | Null = null
            def onSubscribe(s: Flow.Subscription): Unit =
              asking = s
              s.request(1)
            def onNext(m: String): Unit =
              heard.add(m)
              val _ = Future { Thread.sleep(30); asking.nn.request(1) }(using scala.concurrent.ExecutionContext.global)
            def onError(t: Throwable): Unit = ended.countDown()
            def onComplete(): Unit = ended.countDown())
          Silent(() => ())
        }
      }
      withServer(slow) { t =>
        val c = open(t, "/ws/last-words")
        try
          val said = (1 to 5).map(i => s"message $i").toList
          c.send(said.map(m => frame(Text, m)).reduce(_ ++ _) ++ frame(Close, closePayload(1000, "bye")))
          // The client leaves at once, or waits for the server's close
          if leaves then c.close() else closedWith(c, 1000)
          assert(ended.await(5, java.util.concurrent.TimeUnit.SECONDS), "the client's messages end")
          assertEquals(heard.asScala.toList, said, if leaves then "the client left after its close" else "")
        finally c.close()
      }

  // An idle timer, a table of open WebSockets or a callback of the connection's that outlives the WebSocket would keep
  // each one, its upgrade request and the logic's streams, for as long as the timer or the table.
  test("a WebSocket closed by either side is let go and its socket closed, with its request and the logic's streams"):
    val seen = LetGo()
    val watched = endpoint.get
      .in("ws" / "watched")
      .in(extractFromRequest(identity))
      .out(webSocketBody[String, String].withIdleTimeout(30.seconds))
      .serverLogicSuccess { request =>
        seen.watch(request)
        Future.successful { in =>
          seen.watch(in)
          in
        }
      }
    val sockets = 10
    withServer(watched) { t =>
      val before = OpenFiles.sockets()
      for i <- 1 to sockets do
        val c = open(t, "/ws/watched")
        try
          echoes(c, s"message $i")
          // Half closed with the close handshake, half by the client going away
          if i % 2 == 0 then
            c.send(frame(Close, closePayload(1000, "")))
            closedWith(c, 1000)
            assert(c.closedByServer(2000), "the server closes the connection after the close handshake")
        finally c.close()
      assertEquals(seen.count, 2 * sockets)
      // Both ends are in this JVM: the server's sockets are closed too, whoever closed first
      eventually(OpenFiles.sockets() <= before, s"${OpenFiles.sockets() - before} sockets more than before")
      eventually(seen.held() == 0L, "the WebSockets' requests and streams let go")
    }

  test("JSON messages are read and written by their codec; one that doesn't parse closes with 1007 saying where"):
    import rapier.json.jsoniter.jsonMessages
    import TestModel.{Line, Order, Status, given}
    import com.github.plokhotnyuk.jsoniter_scala.core.{readFromArray, writeToArray}
    val order = Order(7, "ada", Status.Open, List(Line("pen", 2, BigDecimal("1.5"))), None)
    val orders = endpoint.get
      .in("ws" / "orders")
      .out(webSocketBody[Order, Order](using jsonMessages[Order], jsonMessages[Order]))
      .serverLogicSuccess(_ => Future.successful(in => in))
    withServer(orders) { t =>
      connected(t, "/ws/orders") { c =>
        c.send(frame(Text, writeToArray(order)))
        val back = readFrame(c)
        assertEquals(back.opcode, Text, back.text)
        assertEquals(readFromArray[Order](back.payload), order)
        c.send(frame(Text, """{"id":7,"customer":"""))
        val closing = closedWith(c, 1007)
        assert(
          closing.text.contains("The message is malformed in customer: unexpected end of input at byte 19"),
          closing.text
        )
      }
    }

  test("stopping the server closes its WebSockets with 1001"):
    withServer(echo) { t =>
      connected(t, "/ws/echo") { c =>
        echoes(c, "hi")
        val stopping = Future(t.stop())(using scala.concurrent.ExecutionContext.global)
        closedWith(c, 1001)
        c.send(frame(Close, closePayload(1001, "")))
        assert(c.closedByServer(2000))
        await(stopping, "the server stops")
      }
    }

  // Autobahn's cases 12 and 13 test permessage-deflate (RFC 7692) on servers that accept it: one that declines it, as
  // every backend of Rapier's does, is not tested by them, and must then treat a compressed frame's RSV1 as a reserved
  // bit (the protocol errors' test above).
  test("a request that doesn't ask for the upgrade as it should is refused, and a refused credential is a 401 first"):
    withServer(echo, secured) { t =>
      val plain = t.get("/ws/echo")
      assertEquals(plain.status, 426)
      assert(plain.header("Upgrade").exists(_.equalsIgnoreCase("websocket")), plain.toString)
      val version = t.rawExchange(handshake("/ws/echo").replace("Version: 13", "Version: 8"))
      assertEquals((version.status, version.header("Sec-WebSocket-Version")), (426, Some("13")))
      assertEquals(t.rawExchange(handshake("/ws/echo", key = "short")).status, 400)
      assertEquals(t.rawExchange(handshake("/ws/echo").replace("Connection: Upgrade", "Connection: x")).status, 400)
      val withBody = t.rawExchange(handshake("/ws/echo", extra = "Content-Length: 5\r\n") + "hello")
      assertEquals(withBody.status, 400)
      assert(withBody.problem.detail.contains("has no body"), withBody.problem.detail)
      assertEquals(t.rawExchange(handshake("/ws/secured", extra = "X-Key: wrong\r\n")).status, 401)
      assertEquals(t.rawExchange(handshake("/ws/secured")).status, 401, "a missing credential")
      val c = t.raw()
      try
        assertEquals(c.send(handshake("/ws/secured", extra = "X-Key: open\r\n")).readResponse(head = true).status, 101)
      finally c.close()
    }

/** The streams of the kit's WebSocket endpoints, and a subscriber for tests of their own. */
object WebSocketTests:
  /** Three messages, then the end. */
  object Three extends Flow.Publisher[String]:
    def subscribe(s: Flow.Subscriber[? >: String]): Unit =
      val left = scala.collection.mutable.Queue("one", "two", "three")
      s.onSubscribe(new Flow.Subscription:
        private var done = false
        def request(n: Long): Unit =
          var k = n
          while k > 0 && left.nonEmpty do
            s.onNext(left.dequeue())
            k -= 1
          if left.isEmpty && !done then
            done = true
            s.onComplete()
        def cancel(): Unit = left.clear())

  /** A subscriber that asks for `n` messages at its start. */
  def subscriber[T](n: Long, onMessage: T => Unit, onEnd: () => Unit = () => ()): Flow.Subscriber[T] =
    new Flow.Subscriber[T]:
      def onSubscribe(s: Flow.Subscription): Unit = s.request(n)
      def onNext(m: T): Unit = onMessage(m)
      def onError(t: Throwable): Unit = onEnd()
      def onComplete(): Unit = onEnd()

  /** A stream that sends nothing and never ends, until cancelled. */
  final class Silent(onCancel: () => Unit) extends Flow.Publisher[String]:
    def subscribe(s: Flow.Subscriber[? >: String]): Unit = s.onSubscribe(new Flow.Subscription:
      def request(n: Long): Unit = ()
      def cancel(): Unit = onCancel())
