package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.InputStream
import java.nio.ByteBuffer
import java.security.MessageDigest
import java.util.concurrent.{Executors, Flow}
import scala.concurrent.{ExecutionContext, Future}

/**
 * Request bodies read as streams: a `Flow.Publisher` of chunks, an `InputStream`, a fold over chunks and a file, each
 * answering with the number of bytes and their digest, so that every byte is checked, in order. How a streamed body
 * flows (back-pressure, limits, what goes wrong) is tested in [[StreamFlowTests]].
 */
trait StreamTests extends ServerTestSupport:
  // An InputStream's reads block: logic that reads one runs on threads of its own, never on the server's.
  protected val blocking = ExecutionContext.fromExecutorService(Executors.newCachedThreadPool())

  override def afterAll(): Unit =
    blocking.shutdown()
    super.afterAll()

  protected def summary(count: Long, digest: MessageDigest): String = Digesting.summary(count, digest)

  protected def expected(bytes: Array[Byte]): String = Digesting.expected(bytes)

  /** Subscribes to a body, asking for one chunk at a time, and answers with its size and digest. */
  private def subscribe(body: Flow.Publisher[ByteBuffer]): Future[String] = Digesting.of(body)

  protected def read(in: InputStream): String = Digesting.of(in)

  protected val published =
    endpoint.post.in("stream" / "publisher").in(publisherBody).out(stringBody).serverLogicSuccess(subscribe)
  private val streamed =
    endpoint.post
      .in("stream" / "input")
      .in(query[Int]("skip"))
      .in(inputStreamBody)
      .out(stringBody)
      .serverLogicSuccess((skip, in) => Future { in.skipNBytes(skip.toLong); read(in) }(using blocking))

  protected val body = Array.tabulate[Byte](3 * 1024 * 1024 + 17)(i => (i * 7 + i / 1024).toByte)

  private val folded =
    endpoint.post.in("stream" / "folded").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      chunks
        .fold((0L, Sha256.digest())) { case ((count, digest), chunk) =>
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
        (body ++ body).grouped(100000).foreach(c.sendChunk)
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
      val digest = Sha256.digest()
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
        body.grouped(100000).foreach(chunked.sendChunk)
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
