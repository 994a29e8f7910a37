package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.InputStream
import java.nio.ByteBuffer
import java.security.MessageDigest
import java.util.concurrent.{Executors, Flow}
import scala.concurrent.duration.DurationInt
import scala.concurrent.{ExecutionContext, Future, Promise}

/**
 * Request bodies read as streams: a `Flow.Publisher` of chunks and an `InputStream`, each answering with the number
 * of bytes and their digest, so that every byte is checked, in order.
 */
trait StreamTests extends ServerTestSupport:
  // An InputStream's reads block: logic that reads one runs on threads of its own, never on the server's.
  private val blocking = ExecutionContext.fromExecutorService(Executors.newCachedThreadPool())

  override def afterAll(): Unit =
    blocking.shutdown()
    super.afterAll()

  private def summary(count: Long, digest: MessageDigest): String =
    s"$count ${digest.digest().map("%02x".format(_)).mkString}"

  private def expected(bytes: Array[Byte]): String =
    summary(bytes.length.toLong, { val d = MessageDigest.getInstance("SHA-256"); d.update(bytes); d })

  /** Subscribes to a body, asking for one chunk at a time, and answers with its size and digest. */
  private def subscribe(body: Flow.Publisher[ByteBuffer]): Future[String] =
    val done = Promise[String]()
    body.subscribe(new Flow.Subscriber[ByteBuffer]:
      private val digest = MessageDigest.getInstance("SHA-256")
      private var count = 0L
      private var subscription: Flow.Subscription = null
      def onSubscribe(s: Flow.Subscription): Unit =
        subscription = s
        s.request(1)
      def onNext(chunk: ByteBuffer): Unit =
        count += chunk.remaining
        digest.update(chunk)
        subscription.request(1)
      def onError(t: Throwable): Unit = done.failure(t)
      def onComplete(): Unit = done.success(summary(count, digest)))
    done.future

  private def read(in: InputStream): String =
    val digest = MessageDigest.getInstance("SHA-256")
    val buffer = new Array[Byte](8192)
    var count = 0L
    var n = in.read(buffer)
    while n >= 0 do
      digest.update(buffer, 0, n)
      count += n
      n = in.read(buffer)
    summary(count, digest)

  private val published =
    endpoint.post.in("stream" / "publisher").in(publisherBody).out(stringBody).serverLogicSuccess(subscribe)
  private val streamed =
    endpoint.post
      .in("stream" / "input")
      .in(query[Int]("skip"))
      .in(inputStreamBody)
      .out(stringBody)
      .serverLogicSuccess((skip, in) => Future { in.skipNBytes(skip.toLong); read(in) }(using blocking))

  private val body = Array.tabulate[Byte](3 * 1024 * 1024 + 17)(i => (i * 7 + i / 1024).toByte)

  private val folded =
    endpoint.post.in("stream" / "folded").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      chunks
        .fold((0L, MessageDigest.getInstance("SHA-256"))) { case ((count, digest), chunk) =>
          val n = chunk.remaining
          digest.update(chunk)
          (count + n, digest)
        }
        .map((count, digest) => summary(count, digest))(using ExecutionContext.parasitic)
    }

  test("a body written to a file as it arrives, past maxBodySize, deleted once answered; past the stream limit a 413"):
    val seen = java.util.concurrent.ConcurrentLinkedQueue[java.nio.file.Path]()
    val toFile = endpoint.post.in("stream" / "file").in(fileBody).out(stringBody).serverLogicSuccess { path =>
      seen.add(path)
      Future.successful(expected(java.nio.file.Files.readAllBytes(path)))
    }
    withServerConfig(TestServerConfig(maxBodySize = 1024, maxStreamedBodySize = 4L * 1024 * 1024))(toFile) { t =>
      assertEquals(t.post("/stream/file", body).body, expected(body))
      assertEquals(t.post("/stream/file", Array.emptyByteArray).body, expected(Array.emptyByteArray))
      eventually(!seen.isEmpty && seen.stream.allMatch(p => !java.nio.file.Files.exists(p)), "the files are deleted")
      val c = t.raw()
      try
        c.send("POST /stream/file HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        (body ++ body).grouped(100000).foreach(p =>
          c.send(s"${Integer.toHexString(p.length)}\r\n").send(p).send("\r\n")
        )
        assertEquals(c.readResponse().status, 413)
      finally c.close()
      eventually(t.bodyBytesHeld == 0, "nothing is held once the request is answered")
    }

  test(
    "a body folded or read with foreach arrives whole and in order, chunk by chunk, without a copy; it is read once"
  ):
    val twice = endpoint.post.in("stream" / "twice").in(chunksBody).out(stringBody).serverLogic { chunks =>
      chunks.fold(0)((n, _) => n)
      chunks.fold(0)((n, _) => n).transform(t =>
        scala.util.Success(Right(t.failed.map(_.getMessage).getOrElse("folded twice")))
      )(using ExecutionContext.parasitic)
    }
    val throwing = endpoint.post.in("stream" / "thrown").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      chunks.fold(0L)((n, c) => if n > 100000 then throw IllegalStateException("enough") else n + c.remaining).map(
        _.toString
      )(using ExecutionContext.parasitic)
    }
    val each = endpoint.post.in("stream" / "each").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      val digest = MessageDigest.getInstance("SHA-256")
      var count = 0L
      chunks
        .foreach { chunk =>
          count += chunk.remaining
          digest.update(chunk)
        }
        .map(_ => summary(count, digest))(using ExecutionContext.parasitic)
    }
    withServer(folded, twice, throwing, each) { t =>
      assertEquals(t.post("/stream/each", body).body, expected(body))
      assertEquals(t.post("/stream/each", Array.emptyByteArray).body, expected(Array.emptyByteArray))
      assertEquals(t.post("/stream/folded", body).body, expected(body))
      assertEquals(t.post("/stream/folded", Array.emptyByteArray).body, expected(Array.emptyByteArray))
      assert(t.post("/stream/twice", "abc").body.contains("read once"))
      assertEquals(t.post("/stream/thrown", body).status, 500)
      assertEquals(t.post("/stream/folded", body.take(10)).body, expected(body.take(10)))
      eventually(t.bodyBytesHeld == 0, "nothing is held once the requests are answered")
    }

  test("logic failing in its fold while the body still arrives: its 500 reaches the client, which sends the rest"):
    val throwing = endpoint.post.in("stream" / "thrown").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      chunks.fold(0L)((n, c) => if n > 100000 then throw IllegalStateException("enough") else n + c.remaining).map(
        _.toString
      )(using ExecutionContext.parasitic)
    }
    withServer(throwing) { t =>
      val c = t.raw()
      try
        c.send(s"POST /stream/thrown HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n")
        c.send(body.take(300000))
        // The logic has failed by now; the rest comes after, as from a client that doesn't read while it sends
        Thread.sleep(300)
        body.drop(300000).grouped(256 * 1024).foreach(c.send)
        assertEquals(c.readResponse().status, 500)
      finally c.close()
    }

  test("logic that answers while its fold still reads the body: the requests after it are read as sent"):
    // The fold is started and not waited for: the backend drains what it leaves while it may still be pulling
    val early = endpoint.post.in("stream" / "early").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      chunks.fold(0L)((n, c) => n + c.remaining)
      Future.successful("early")
    }
    withServer(folded, early) { t =>
      for n <- 1 to 10 do
        assertEquals(t.post("/stream/early", body.take(n)).body, "early", s"round $n")
        assertEquals(t.post("/stream/folded", body.take(n)).body, expected(body.take(n)), s"round $n")
      // The body comes after the answer, with the next request behind it: that request is served as sent, or the
      // connection closed before it (the first answer said so); never read from where the body's readers left it
      val c = t.raw()
      try
        c.send("POST /stream/early HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        val first = c.readResponse()
        assertEquals(first.body, "early")
        c.send("hello")
        val next = "POST /stream/folded HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
        if first.header("Connection").exists(_.equalsIgnoreCase("close")) then
          try c.send(next)
          catch case _: java.io.IOException => () // closed already
          assert(c.closedByServer(5000), "the connection closes after an answer that says so")
        else assertEquals(c.send(next).readResponse().body, expected("abc".getBytes))
      finally c.close()
      eventually(t.bodyBytesHeld == 0, "nothing is held once the requests are answered")
    }

  test("a body read as a Flow.Publisher arrives whole and in order, sized or chunked"):
    withServer(published) { t =>
      assertEquals(t.post("/stream/publisher", body).body, expected(body))
      val chunked = t.raw()
      try
        chunked.send("POST /stream/publisher HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        body.grouped(100000).foreach { part =>
          chunked.send(s"${Integer.toHexString(part.length)}\r\n")
          chunked.send(part)
          chunked.send("\r\n")
        }
        chunked.send("0\r\n\r\n")
        assertEquals(chunked.readResponse().body, expected(body))
      finally chunked.close()
    }

  test("an empty body read as a stream ends at once"):
    withServer(published, streamed) { t =>
      assertEquals(t.post("/stream/publisher", Array.emptyByteArray).body, expected(Array.emptyByteArray))
      assertEquals(t.post("/stream/input?skip=0", Array.emptyByteArray).body, expected(Array.emptyByteArray))
    }

  test("a body read as an InputStream, by logic on threads of its own, arrives whole and in order"):
    withServer(streamed) { t =>
      assertEquals(t.post("/stream/input?skip=5", body).body, expected(body.drop(5)))
    }

  test("a streamed body's other inputs are decoded first: one that fails is a 400, the body not read"):
    withServer(streamed) { t =>
      val r = t.post("/stream/input?skip=x", body)
      assertEquals(r.status, 400)
      assert(r.problem.detail.contains("query parameter 'skip'"), r.problem.detail)
      assertEquals(t.post("/stream/input?skip=1", "ab").body, expected("b".getBytes))
    }

  // Logic the tests steer: it reports when it has read `first` bytes, reads on only once the test opens its gate,
  // and tells the test how its reading ended.
  private final class Gate:
    val reached = Promise[Long]()
    val open = Promise[Unit]()
    val outcome = Promise[String]()

  @volatile private var gate = Gate()

  private def gated(first: Long, body: Flow.Publisher[ByteBuffer]): Future[String] =
    val g = gate
    val done = Promise[String]()
    val reader = new Flow.Subscriber[ByteBuffer]:
      private val digest = MessageDigest.getInstance("SHA-256")
      private var count = 0L
      private var subscription: Flow.Subscription = null
      def onSubscribe(s: Flow.Subscription): Unit =
        subscription = s
        s.request(1)
      def onNext(chunk: ByteBuffer): Unit =
        count += chunk.remaining
        digest.update(chunk)
        if count >= first && g.reached.trySuccess(count) then
          g.open.future.onComplete(_ => subscription.request(1))(using ExecutionContext.parasitic)
        else subscription.request(1)
      def onError(e: Throwable): Unit =
        g.outcome.trySuccess(s"error: ${e.getMessage}")
        done.failure(e)
      def onComplete(): Unit =
        val s = summary(count, digest)
        g.outcome.trySuccess(s)
        done.success(s)
    body.subscribe(reader)
    done.future

  private val gatedEndpoint =
    endpoint.post.in(
      "stream" / "gated"
    ).in(query[Long]("first")).in(publisherBody).out(stringBody).serverLogicSuccess(gated)

  private val ignoring =
    endpoint.post.in("stream" / "ignored").in(publisherBody).out(stringBody).serverLogicSuccess(_ =>
      Future.successful("ignored")
    )

  private def await[T](f: Future[T], what: String): T =
    try scala.concurrent.Await.result(f, 10.seconds)
    catch case _: java.util.concurrent.TimeoutException => fail(s"not so within 10 s: $what")

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
    val total = 48 * 1024 * 1024
    withServer(gatedEndpoint) { t =>
      val c = t.raw()
      try
        c.send(head(s"/stream/gated?first=1", s"Content-Length: $total"))
        val written = java.util.concurrent.atomic.AtomicLong()
        val part = new Array[Byte](64 * 1024)
        val digest = MessageDigest.getInstance("SHA-256")
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
        assert(written.get < total / 2, s"the server read ahead of its reader: ${written.get} of $total bytes sent")
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
        body.take(300000).grouped(30000).foreach(p =>
          c.send(s"${Integer.toHexString(p.length)}\r\n").send(p).send("\r\n")
        )
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
      val (r, sent) = uploadGiB(t, "/stream/publisher")(())
      assertEquals(r.status, 413)
      assert(r.problem.detail.contains(limit.toString), r.problem.detail)
      assert(sent > (32L << 20), s"only $sent bytes were sent")
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
