package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.ByteArrayInputStream
import java.nio.ByteBuffer
import java.nio.file.{Files, Path}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import java.util.concurrent.{Executors, Flow}
import scala.concurrent.{Future, Promise}

/**
 * Response bodies that are not in memory: a file, a `Flow.Publisher` and an `InputStream`, sent whole and in order,
 * only as fast as the client reads them, and let go of when the client goes away.
 */
trait ResponseStreamTests extends ServerTestSupport:
  private val producers = Executors.newCachedThreadPool()

  override def afterAll(): Unit =
    producers.shutdown()
    super.afterAll()

  /** Chunk `i` of a streamed body: `size` bytes, each telling its chunk and place, so that any reordering shows. */
  // Loops over arrays of bytes, where tabulate and sameElements box each byte: these bodies reach 128 MiB
  private def chunkBytes(i: Int, size: Int): Array[Byte] =
    val bytes = new Array[Byte](size)
    var j = 0
    while j < size do
      bytes(j) = (i * 31 + j / 7).toByte
      j += 1
    bytes
  private def same(a: Array[Byte], b: Array[Byte]): Boolean = java.util.Arrays.equals(a, b)
  private def bodyOf(chunks: Int, size: Int): Array[Byte] = Array.concat((0 until chunks).map(chunkBytes(_, size))*)

  /**
   * A publisher of `chunks` chunks of `size` bytes, each produced on a thread of its own when requested; it fails
   * after `failAfter` chunks when that is not negative. It tells how many it produced and whether it was cancelled.
   */
  private final class Chunks(chunks: Int, size: Int, failAfter: Int = -1) extends Flow.Publisher[ByteBuffer]:
    val produced = AtomicInteger()
    val cancelled = Promise[Unit]()
    def subscribe(s: Flow.Subscriber[? >: ByteBuffer]): Unit =
      val done = AtomicBoolean()
      s.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit = producers.execute { () =>
          synchronized {
            var left = n
            while left > 0 && !done.get do
              val i = produced.get
              if i == failAfter then
                done.set(true)
                s.onError(IllegalStateException("the source broke"))
              else if i == chunks then
                done.set(true)
                s.onComplete()
              else
                produced.incrementAndGet()
                s.onNext(ByteBuffer.wrap(chunkBytes(i, size)))
              left -= 1
          }
        }
        def cancel(): Unit =
          done.set(true)
          cancelled.trySuccess(()))

  /** An InputStream over `bytes` that tells when it is closed. */
  private final class Tracked(bytes: Array[Byte]) extends ByteArrayInputStream(bytes):
    val closed = Promise[Unit]()
    override def close(): Unit = closed.trySuccess(())

  @volatile private var publisher: Chunks = Chunks(0, 0)
  @volatile private var stream: Tracked = Tracked(Array.emptyByteArray)

  private val published = endpoint.get.in("out" / "publisher").out(publisherBody).serverLogicSuccess { _ =>
    Future.successful(publisher)
  }
  private val sized =
    endpoint.get
      .in("out" / "sized")
      .in(query[Long]("n"))
      .out(header[Long]("Content-Length"))
      .out(publisherBody)
      .serverLogicSuccess(n => Future.successful((n, publisher)))
  private val fromStream = endpoint.get.in("out" / "stream").out(inputStreamBody).serverLogicSuccess { _ =>
    Future.successful(stream)
  }
  @volatile private var file: Path = Path.of("nowhere")
  private val fromFile = endpoint.get.in("out" / "file").out(fileBody).serverLogicSuccess(_ => Future.successful(file))
  private val small =
    endpoint.get.in("out" / "small").out(stringBody).serverLogicSuccess(_ => Future.successful("small"))

  test("a response body from a Flow.Publisher is sent whole and in order, chunked"):
    publisher = Chunks(200, 50000)
    withServer(published) { t =>
      val r = t.get("/out/publisher")
      assertEquals(r.status, 200)
      // HTTP/2 has no chunked coding: a body of unknown length is its DATA frames, without Content-Length
      if protocol == KitProtocol.Http1 then assertEquals(r.header("transfer-encoding"), Some("chunked"))
      else assertEquals(r.header("content-length"), None)
      assert(same(r.bytes, bodyOf(200, 50000)), s"${r.bytes.length} bytes")
    }

  test("a streamed response body with the Content-Length its endpoint sets is sent with that length"):
    publisher = Chunks(10, 1000)
    withServer(sized) { t =>
      val r = t.get("/out/sized?n=10000")
      assertEquals(r.header("content-length"), Some("10000"))
      assertEquals(r.header("transfer-encoding"), None)
      assert(same(r.bytes, bodyOf(10, 1000)))
      // A source shorter than its declared length can't be framed: the connection closes without the body's end.
      publisher = Chunks(5, 1000)
      val c = t.raw()
      try
        c.send("GET /out/sized?n=10000 HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse().bytes.length, 5000)
        assert(c.closedByServer())
      finally c.close()
    }

  test("a response body from an InputStream is sent whole, then the stream is closed"):
    val bytes = bodyOf(80, 65536)
    stream = Tracked(bytes)
    withServer(fromStream) { t =>
      val r = t.get("/out/stream")
      assert(same(r.bytes, bytes), s"${r.bytes.length} bytes")
      await(stream.closed.future, "the stream is closed")
    }

  test("a response body from a file is sent with its length; HEAD gets the length alone; a missing file is a 500"):
    val path = Files.createTempFile("rapier-out", ".bin")
    try
      val bytes = bodyOf(90, 65536)
      Files.write(path, bytes)
      file = path
      withServer(fromFile) { t =>
        val r = t.get("/out/file")
        assertEquals(r.header("content-length"), Some(bytes.length.toString))
        assert(same(r.bytes, bytes), s"${r.bytes.length} bytes")
        val head = t.raw()
        try
          val h = head.send("HEAD /out/file HTTP/1.1\r\nHost: x\r\n\r\n").readResponse(head = true)
          assertEquals(h.header("content-length"), Some(bytes.length.toString))
          assertEquals(head.send("GET /out/small HTTP/1.1\r\nHost: x\r\n\r\n").readResponse().status, 404)
        finally head.close()
        file = path.resolveSibling("rapier-no-such-file")
        assertEquals(t.get("/out/file").status, 500)
      }
    finally Files.deleteIfExists(path)

  test("a file's byte ranges: one is a 206 with its Content-Range, one past the end a 416, others the whole file"):
    val path = Files.createTempFile("rapier-out", ".bin")
    try
      val bytes = Array.tabulate[Byte](100000)(i => (i % 251).toByte)
      Files.write(path, bytes)
      file = path
      withServer(fromFile, small) { t =>
        def ranged(range: String, more: (String, String)*) = t.get("/out/file", (("Range" -> range) +: more)*)
        def partial(range: String, first: Int, last: Int): Unit =
          val r = ranged(range)
          assertEquals(r.status, 206, range)
          assertEquals(r.header("content-range"), Some(s"bytes $first-$last/100000"), range)
          assertEquals(r.header("content-length"), Some((last - first + 1).toString), range)
          assert(same(r.bytes, bytes.slice(first, last + 1)), s"$range: ${r.bytes.length} bytes")
        partial("bytes=10-19", 10, 19)
        partial("Bytes = 99990-", 99990, 99999)
        partial("bytes=-5", 99995, 99999)
        partial("bytes=0-99999999999999999999", 0, 99999)
        val past = ranged("bytes=100000-100010")
        assertEquals((past.status, past.header("content-range")), (416, Some("bytes */100000")))
        assertEquals(past.problem.detail, "The range asked for holds no byte of the file, which has 100000.")
        assertEquals(ranged("bytes=-0").status, 416)
        // What the server answers whole, as RFC 9110 lets it: several ranges, a condition, a range it can't read
        for (range, more) <- List(
            "bytes=0-1,5-6" -> Nil,
            "bytes=5-1" -> Nil,
            "bytes=x-3" -> Nil,
            "items=0-1" -> Nil,
            "bytes=0-1" -> List("If-Range" -> "\"v1\"")
          )
        do
          val whole = ranged(range, more*)
          assertEquals((whole.status, whole.bytes.length), (200, 100000), range)
        val plain = t.get("/out/file")
        assertEquals((plain.status, plain.header("accept-ranges")), (200, Some("bytes")))
        // The range's length frames it: the next request on the connection is read and answered
        val c = t.raw()
        try
          val r = c.send("GET /out/file HTTP/1.1\r\nHost: x\r\nRange: bytes=1-3\r\n\r\n").readResponse()
          assert(same(r.bytes, bytes.slice(1, 4)), s"${r.bytes.length} bytes")
          val h = c.send("HEAD /out/file HTTP/1.1\r\nHost: x\r\nRange: bytes=1-3\r\n\r\n").readResponse(head = true)
          assertEquals((h.status, h.header("content-length")), (200, Some("100000")))
          assertEquals(c.send("GET /out/small HTTP/1.1\r\nHost: x\r\n\r\n").readResponse().body, "small")
        finally c.close()
      }
    finally Files.deleteIfExists(path)

  test(
    anyStyle("a file body carries a strong ETag and Last-Modified, and answers conditional requests as static files")
  ):
    val path = Files.createTempFile("rapier-out", ".bin")
    try
      Files.write(path, "validated".getBytes)
      Files.setLastModifiedTime(
        path,
        java.nio.file.attribute.FileTime.from(java.time.Instant.parse("2024-05-01T10:00:00Z"))
      )
      file = path
      withServer(fromFile) { t =>
        val plain = t.get("/out/file")
        val etag = plain.header("etag").getOrElse(fail("no ETag"))
        assert(etag.startsWith("\"") && etag.endsWith("\"") && !etag.startsWith("W/"), etag)
        val modified = "Wed, 01 May 2024 10:00:00 GMT"
        assertEquals(plain.header("last-modified"), Some(modified))
        def asked(h: (String, String)*) = t.get("/out/file", h*)
        val current = asked("If-None-Match" -> etag)
        assertEquals((current.status, current.bytes.length, current.header("etag")), (304, 0, Some(etag)))
        assertEquals(current.header("last-modified"), Some(modified))
        assertEquals(asked("If-None-Match" -> s"\"other\", W/$etag").status, 304, "compared weakly")
        assertEquals(asked("If-None-Match" -> "\"other\"").status, 200)
        assertEquals(asked("If-Modified-Since" -> modified).status, 304)
        assertEquals(asked("If-Modified-Since" -> "Tue, 30 Apr 2024 10:00:00 GMT").status, 200)
        assertEquals(asked("If-None-Match" -> "\"other\"", "If-Modified-Since" -> modified).status, 200, "§13.2.2")
        val failed = asked("If-Match" -> "\"other\"")
        assertEquals((failed.status, failed.problem.status), (412, 412))
        assertEquals(asked("If-Match" -> etag).status, 200)
        assertEquals(asked("If-Match" -> s"W/$etag").status, 412, "compared strongly")
        assertEquals(asked("If-Unmodified-Since" -> "Tue, 30 Apr 2024 10:00:00 GMT").status, 412)
        val c = t.raw()
        try
          val head =
            c.send(s"HEAD /out/file HTTP/1.1\r\nHost: x\r\nIf-None-Match: $etag\r\n\r\n").readResponse(head = true)
          assertEquals(head.status, 304)
          assertEquals(c.send("GET /out/file HTTP/1.1\r\nHost: x\r\n\r\n").readResponse().body, "validated")
        finally c.close()
        Files.write(path, "validated again".getBytes)
        assertNotEquals(t.get("/out/file").header("etag"), Some(etag), "a file written again has another tag")
      }
    finally Files.deleteIfExists(path)

  // Within a few seconds of now: the Date of an answer (RFC 9110 §6.6.1), which every one carries
  private def dated(r: TestResponse, what: String): Unit =
    val date = r.header("date").getOrElse(fail(s"$what: no Date"))
    val at = rapier.model.HttpDate.parseOrNull(date)
    assert(at != null && math.abs(at.nn.getEpochSecond - java.time.Instant.now.getEpochSecond) <= 5, s"$what: $date")

  test(anyStyle("every answer carries a Date: the logic's, a rejection's, a file's")):
    val path = Files.createTempFile("rapier-out", ".bin")
    try
      Files.write(path, "dated".getBytes)
      file = path
      withServer(fromFile, small) { t =>
        dated(t.get("/out/small"), "200")
        dated(t.get("/out/file"), "a file")
        dated(t.get("/nowhere"), "404")
        dated(t.send("DELETE", "/out/small", null), "405")
        dated(t.rawExchange("GET /out/small HTTP/1.0\r\n\r\n"), "HTTP/1.0")
      }
    finally Files.deleteIfExists(path)

  test(anyStyle("a malformed request's refusal carries a Date")):
    withServer(small) { t =>
      dated(t.rawExchange("GET /out/small HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n"), "a refused head")
    }

  test("a file is closed once sent, once its HEAD is answered, and once its client goes away mid-response"):
    assume(OpenFiles.available, "open files are counted from /proc/self/fd, which only Linux has")
    // Little is allocated meanwhile: a collection would close what a server leaked, and hide it
    val whole = Files.createTempFile("rapier-out", ".bin")
    val large = Files.createTempFile("rapier-out", ".bin")
    try
      Files.write(whole, bodyOf(4, 65536))
      Files.write(large, new Array[Byte](32 * 1024 * 1024))
      withServer(fromFile, small) { t =>
        file = whole
        val c = t.raw()
        try
          for _ <- 1 to 3 do
            assertEquals(c.send("GET /out/file HTTP/1.1\r\nHost: x\r\n\r\n").readResponse().bytes.length, 4 * 65536)
          val h = c.send("HEAD /out/file HTTP/1.1\r\nHost: x\r\n\r\n").readResponse(head = true)
          assertEquals(h.header("content-length"), Some((4 * 65536).toString))
          // The connection stays open: what the server holds for the file must not wait for it to close
          eventually(OpenFiles.on(whole) == 0, s"${OpenFiles.on(whole)} descriptors open on the file once it is sent")
        finally c.close()
        file = large
        for _ <- 1 to 5 do
          val gone = t.raw()
          gone.send("GET /out/file HTTP/1.1\r\nHost: x\r\n\r\n").readBytes(100000)
          gone.close()
        assertEquals(t.get("/out/small").body, "small")
        eventually(
          OpenFiles.on(large) == 0,
          s"${OpenFiles.on(large)} descriptors open on the file after its clients went away"
        )
      }
    finally
      Files.deleteIfExists(whole)
      Files.deleteIfExists(large)

  test("a streamed response is produced only as fast as the client reads it"):
    publisher = Chunks(2000, 65536)
    withServer(published) { t =>
      val c = t.raw()
      try
        c.send("GET /out/publisher HTTP/1.1\r\nHost: x\r\n\r\n")
        // The client reads nothing: production stalls once the socket buffers are full.
        var before = -1
        eventually(
          {
            val now = publisher.produced.get; val stalled = now == before && now > 0; before = now; Thread.sleep(300);
            stalled
          },
          "production stalls while the client reads nothing"
        )
        assert(publisher.produced.get < 1000, s"${publisher.produced.get} of 2000 chunks produced for nobody")
        assert(same(c.readResponse().bytes, bodyOf(2000, 65536)))
      finally c.close()
    }

  test("a client that goes away mid-response cancels the source, and the server serves on"):
    publisher = Chunks(100000, 65536)
    val source = publisher
    stream = Tracked(new Array[Byte](200 * 1024 * 1024))
    withServer(published, fromStream, small) { t =>
      for path <- List("/out/publisher", "/out/stream") do
        val c = t.raw()
        c.send(s"GET $path HTTP/1.1\r\nHost: x\r\n\r\n").readBytes(100000)
        c.close()
      await(source.cancelled.future, "the publisher is cancelled")
      await(stream.closed.future, "the InputStream is closed")
      assertEquals(t.get("/out/small").body, "small")
    }

  test("a source that fails before its first chunk is a 500; one that fails later cuts the response short"):
    withServer(published) { t =>
      publisher = Chunks(10, 1000, failAfter = 0)
      assertEquals(t.get("/out/publisher").status, 500)
      publisher = Chunks(10, 1000, failAfter = 3)
      val c = t.raw()
      try
        c.send("GET /out/publisher HTTP/1.1\r\nHost: x\r\n\r\n")
        intercept[Exception](c.readResponse())
      finally c.close()
      publisher = Chunks(3, 10)
      assertEquals(t.get("/out/publisher").status, 200)
    }

  test("pipelined requests get their answers in order around a streamed one"):
    publisher = Chunks(50, 20000)
    withServer(published, small) { t =>
      val c = t.raw()
      try
        c.send(
          "GET /out/small HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /out/publisher HTTP/1.1\r\nHost: x\r\n\r\n" +
            "GET /out/small HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assertEquals(c.readResponse().body, "small")
        assert(same(c.readResponse().bytes, bodyOf(50, 20000)))
        assertEquals(c.readResponse().body, "small")
      finally c.close()
    }

  test("an echo: a response streamed from the request body it is reading"):
    val echo =
      endpoint.post.in("out" / "echo").in(publisherBody).out(publisherBody).serverLogicSuccess(Future.successful)
    val bytes = bodyOf(300, 10000)
    withServer(echo, small) { t =>
      val c = t.raw()
      try
        c.send(s"POST /out/echo HTTP/1.1\r\nHost: x\r\nContent-Length: ${bytes.length}\r\n\r\n").send(bytes)
        assert(same(c.readResponse().bytes, bytes))
        // The body arrived whole: the connection serves on.
        assertEquals(c.send("GET /out/small HTTP/1.1\r\nHost: x\r\n\r\n").readResponse().body, "small")
      finally c.close()
    }
