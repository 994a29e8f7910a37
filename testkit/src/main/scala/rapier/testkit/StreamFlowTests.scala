package rapier.testkit

import rapier.*
import rapier.server.*

import java.nio.ByteBuffer
import java.util.concurrent.Flow
import scala.concurrent.duration.DurationInt
import scala.concurrent.{ExecutionContext, Future, Promise}

/**
 * How a streamed request body flows, with logic the tests steer: read from the connection only as fast as the logic
 * reads it, held within its limits, and each way it can go wrong — framing broken mid-body, a client that stalls or
 * goes away, logic that answers without reading or throws while it reads — answered clearly, with nothing held after.
 */
trait StreamFlowTests extends StreamTests:
  // Logic the tests steer: it reports when it has read `first` bytes, reads on only once the test opens its gate,
  // and tells the test how its reading ended.
  private final class Gate:
    val reached = Promise[Long]()
    val open = Promise[Unit]()
    val outcome = Promise[String]()

  @volatile private var gate = Gate()

  private def gated(first: Long, body: Flow.Publisher[ByteBuffer]): Future[String] =
    val g = gate
    val reader = new Digesting:
      override protected def more(count: Long, request: () => Unit): Unit =
        if count >= first && g.reached.trySuccess(count) then
          g.open.future.onComplete(_ => request())(using ExecutionContext.parasitic)
        else request()
    body.subscribe(reader)
    reader.result.transform { r =>
      g.outcome.trySuccess(r.fold(e => s"error: ${e.getMessage}", identity))
      r
    }(using ExecutionContext.parasitic)

  private val gatedEndpoint =
    endpoint.post.in(
      "stream" / "gated"
    ).in(query[Long]("first")).in(publisherBody).out(stringBody).serverLogicSuccess(gated)

  private val ignoring =
    endpoint.post.in("stream" / "ignored").in(publisherBody).out(stringBody).serverLogicSuccess(_ =>
      Future.successful("ignored")
    )

  private def head(
      path: String,
      fields: String*
  ): String = (s"POST $path HTTP/1.1" +: "Host: x" +: fields).mkString("", "\r\n", "\r\n\r\n")

  test("a streamed body reaches the logic as it arrives, before the client has sent the rest"):
    gate = Gate()
    withServer(gatedEndpoint) { t =>
      val c = t.raw()
      try
        c.send(head("/stream/gated?first=1000", "Content-Length: 2000")).send(body.take(1000))
        assertEquals(await(gate.reached.future, "the logic read the first half"), 1000L)
        gate.open.success(())
        c.send(body.slice(1000, 2000))
        assertEquals(c.readResponse().body, expected(body.take(2000)))
      finally c.close()
    }

  test("a streamed body is read from the connection only as fast as the logic reads it"):
    gate = Gate()
    // What the sockets' buffers may take whatever the server does: Linux grows a receive buffer up to tcp_rmem's
    // maximum (32 MiB on some machines), a send buffer up to tcp_wmem's
    val buffers = StreamFlowTests.socketBuffersMax
    val bound = buffers + 16 * 1024 * 1024
    // Whole parts of 64 KiB
    val total = (bound / 65536 + 256) * 65536
    withServer(gatedEndpoint) { t =>
      val c = t.raw()
      try
        c.send(head(s"/stream/gated?first=1", s"Content-Length: $total"))
        val written = java.util.concurrent.atomic.AtomicLong()
        val part = new Array[Byte](64 * 1024)
        val digest = Sha256.digest()
        val writer = Future {
          while written.get < total do
            java.util.Arrays.fill(part, (written.get / part.length).toByte)
            c.send(part)
            digest.update(part)
            written.addAndGet(part.length)
        }(using blocking)
        await(gate.reached.future, "the logic read a first chunk")
        // The client's writes stall once the socket buffers fill: the server reads no further ahead of the logic.
        var before = -1L
        eventually(
          { val now = written.get; val stalled = now == before; before = now; Thread.sleep(300); stalled },
          "the client's writes stall while the logic waits"
        )
        assert(
          written.get < bound,
          s"the server read ahead of its reader: ${written.get} of $total bytes sent, the buffers taking $buffers"
        )
        assert(t.bodyBytesHeld < 1024 * 1024, s"the server holds ${t.bodyBytesHeld} bytes of a body nobody reads")
        gate.open.success(())
        await(writer, "the client sent the rest once the logic read on")
        assertEquals(c.readResponse().body, summary(total.toLong, digest))
      finally c.close()
    }

  test("past maxStreamedBodySize a streamed body is a 413, declared or found out mid-body; bytes keep maxBodySize"):
    val config = TestServerConfig(maxBodySize = 1024, maxStreamedBodySize = 100000)
    withServerConfig(config)(published, ignoring) { t =>
      assertEquals(t.post("/stream/publisher", body.take(100000)).body, expected(body.take(100000)))
      assertEquals(t.post("/stream/publisher", body.take(100001)).status, 413)
      val c = t.raw()
      try
        c.send(head("/stream/publisher", "Transfer-Encoding: chunked"))
        body.take(300000).grouped(30000).foreach(c.sendChunk)
        val r = c.readResponse()
        assertEquals(r.status, 413)
        assert(r.problem.detail.contains("100000"), r.problem.detail)
        assert(c.closedByServer(3000))
      finally c.close()
      assertEquals(t.post("/stream/publisher", "after").body, expected("after".getBytes))
      eventually(t.bodyBytesHeld == 0, "nothing is held once the request is answered")
    }

  test("a chunked upload of 1 GiB past maxStreamedBodySize is a 413 that the client, still sending, reads"):
    val limit = 1024 * 1024
    withServerConfig(TestServerConfig(maxStreamedBodySize = limit))(published) { t =>
      val upload = uploadGiB(t, "/stream/publisher")(())
      val r = upload.response
      assertEquals(r.status, 413)
      assert(r.problem.detail.contains(limit.toString), r.problem.detail)
      assert(upload.readOn, upload.toString)
      eventually(t.bodyBytesHeld == 0, "nothing is held once the request is refused")
    }

  test("a streamed body whose chunked framing breaks is a 400, and its reader is told"):
    gate = Gate()
    gate.open.success(())
    withServer(gatedEndpoint) { t =>
      val c = t.raw()
      try
        c.send(head("/stream/gated?first=1", "Transfer-Encoding: chunked") + "5\r\nhello\r\nzz\r\n")
        assertEquals(c.readResponse().status, 400)
        assert(await(gate.outcome.future, "the reader's end").startsWith("error"))
        assert(c.closedByServer(3000))
      finally c.close()
      assertEquals(t.get("/nowhere").status, 404)
    }

  test("a client that goes away mid-body: the reader gets an error, and nothing is held"):
    gate = Gate()
    withServer(gatedEndpoint) { t =>
      val c = t.raw()
      c.send(head("/stream/gated?first=100", "Content-Length: 100000")).send(body.take(5000))
      await(gate.reached.future, "the logic read a first chunk")
      c.close()
      gate.open.success(())
      assert(await(gate.outcome.future, "the reader's end").startsWith("error"))
      eventually(t.bodyBytesHeld == 0, "nothing is held once the connection is gone")
    }

  test("a streamed body is timed only while its reader waits for the client: 408 when the client stalls"):
    gate = Gate()
    gate.open.success(())
    withServerConfig(TestServerConfig(bodyReadTimeout = 500.millis))(gatedEndpoint) { t =>
      val c = t.raw()
      try
        c.send(head("/stream/gated?first=1", "Content-Length: 1000")).send(body.take(10))
        assertEquals(c.readResponse().status, 408)
        assert(await(gate.outcome.future, "the reader's end").startsWith("error"))
      finally c.close()
      // Slow logic is not a slow client: a reader that waits longer than the timeout before it reads is served.
      gate = Gate()
      val slow = Future { Thread.sleep(1500); gate.open.success(()) }(using blocking)
      assertEquals(t.post("/stream/gated?first=1", body.take(5000)).body, expected(body.take(5000)))
      await(slow, "the gate opened")
    }

  test("logic that answers without reading its streamed body is heard, and the connection then closes"):
    withServer(ignoring) { t =>
      val c = t.raw()
      try
        c.send(head("/stream/ignored", "Content-Length: 1000000")).send(body.take(1000))
        val r = c.readResponse()
        assertEquals(r.body, "ignored")
        assert(c.closedByServer(3000))
      finally c.close()
      eventually(t.bodyBytesHeld == 0, "nothing is held once the request is answered")
    }

  test("Expect: 100-continue on a streamed body is answered at the logic's first read, not before"):
    withServer(published, ignoring) { t =>
      val c = t.raw()
      try
        c.send(head("/stream/ignored", "Content-Length: 10", "Expect: 100-continue"))
        assertEquals(c.readResponse().status, 200)
      finally c.close()
      val d = t.raw()
      try
        d.send(head("/stream/publisher", "Content-Length: 10", "Expect: 100-continue"))
        assertEquals(d.readResponse().status, 100)
        d.send(body.take(10))
        assertEquals(d.readResponse().body, expected(body.take(10)))
      finally d.close()
    }

  test("an InputStream body read on the server's own thread fails clearly rather than waiting forever"):
    val blockingRead =
      endpoint.post.in("stream" / "blocking").in(inputStreamBody).out(stringBody).serverLogic { in =>
        Future.fromTry(scala.util.Try(read(in))).map(Right(_))(using ExecutionContext.parasitic)
      }
    withServer(blockingRead) { t =>
      val r = t.post("/stream/blocking", body.take(100))
      // A backend whose logic runs off the connection's thread reads it fine; one whose logic runs on it refuses.
      assert(r.status == 500 || r.body == expected(body.take(100)), s"${r.status} ${r.body}")
      // The same with the body sent well after the head: nothing of it has come when the logic reads
      val c = t.raw()
      try
        c.send("POST /stream/blocking HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
        Thread.sleep(200)
        c.send(body.take(100))
        val late = c.readResponse()
        assert(late.status == 500 || late.body == expected(body.take(100)), s"${late.status} ${late.body}")
      finally c.close()
    }

  // A timer or a table of the backend's that outlives the request (a read deadline left to fire, a pull's callback)
  // would keep each request and its body for as long: under a stream of uploads, a heap the collector copies on and on.
  test("a streamed body and its request are let go once answered, its pulls having waited for the client"):
    val seen = LetGo()
    val counting =
      endpoint.post.in("stream" / "let-go").in(extractFromRequest(identity)).in(publisherBody).out(stringBody)
        .serverLogicSuccess { (request, body) =>
          // The request, the backend's body source behind it, and the publisher the logic reads
          seen.watch(request)
          seen.watch(request.asInstanceOf[spi.ServerRequest].bodySource)
          seen.watch(body)
          val reader = Digesting()
          body.subscribe(reader)
          reader.result
        }
    val uploads = 20
    withServer(counting) { t =>
      val c = t.raw()
      try
        for _ <- 1 to uploads do
          // Half the body, then, once the logic waits for more, the rest
          c.send(head("/stream/let-go", "Content-Length: 2000")).send(body.take(1000))
          Thread.sleep(20)
          c.send(body.slice(1000, 2000))
          assertEquals(c.readResponse().body, expected(body.take(2000)))
      finally c.close()
      assertEquals(seen.count, 3 * uploads)
      eventually(seen.held() == 0L, "the requests and their bodies let go")
    }

  test("logic that throws while it reads a streamed body is a 500; nothing is held, the server serves on"):
    val throwing =
      endpoint.post.in("stream" / "throwing").in(inputStreamBody).out(stringBody).serverLogicSuccess { in =>
        Future { in.readNBytes(100); throw IllegalStateException("the logic gave up") }(using blocking)
      }
    withServer(throwing, published) { t =>
      assertEquals(t.post("/stream/throwing", body.take(500000)).status, 500)
      assertEquals(t.post("/stream/publisher", body.take(1000)).body, expected(body.take(1000)))
      eventually(t.bodyBytesHeld == 0, "nothing is held once the request is answered")
    }

object StreamFlowTests:
  /** The most a connection's two socket buffers may hold here: Linux's limits, or 8 MiB where they can't be read. */
  lazy val socketBuffersMax: Int =
    def limit(name: String): Option[Int] = scala.util.Try {
      java.nio.file.Files.readString(java.nio.file.Path.of(s"/proc/sys/net/ipv4/$name")).trim.split("\\s+")(2).toInt
    }.toOption
    limit("tcp_rmem").zip(limit("tcp_wmem")).map(_ + _).getOrElse(8 * 1024 * 1024)
