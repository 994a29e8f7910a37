package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.ByteArrayInputStream
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, Flow, TimeUnit}
import java.util.zip.{DeflaterOutputStream, GZIPInputStream, GZIPOutputStream, Inflater, InflaterInputStream}
import scala.concurrent.Future
import scala.concurrent.duration.*

/**
 * Response compression (`ServerOptions.withCompression`): the coding `Accept-Encoding` prefers (RFC 9110 §12.5.3),
 * bodies that decode to what the logic answered, `Vary`, streamed bodies encoded as they stream, and the answers left
 * alone: small ones, media types that don't compress, bodies already encoded, files.
 */
trait CompressionTests extends ServerTestSupport:
  private val text = (1 to 200).map(i => s"""{"id":$i,"title":"Book number $i"}""").mkString("[", ",", "]")

  private val json = endpoint.get.in("gz" / "json").out(stringBody).serverLogicSuccess(_ => Future.successful(text))
  private val small = endpoint.get.in("gz" / "small").out(stringBody).serverLogicSuccess(_ => Future.successful("tiny"))
  private val binary =
    endpoint.get.in("gz" / "binary").out(byteArrayBody).serverLogicSuccess(_ => Future.successful(text.getBytes(UTF_8)))
  private val encoded = endpoint.get
    .in("gz" / "encoded")
    .out(header("Content-Encoding", "identity-ish"))
    .out(stringBody)
    .serverLogicSuccess(_ => Future.successful(text))

  private def withCompression[T](endpoints: ServerEndpoint[Future]*)(body: Target => T): T =
    val options = ServerOptions.default.withoutRequestLog.withCompression()
    withServerConfig(TestServerConfig(serverOptions = options))(endpoints*)(body)

  private def decoding[T](limit: Long)(endpoints: ServerEndpoint[Future]*)(body: Target => T): T =
    val options = ServerOptions.default.withoutRequestLog.withCompression(
      rapier.server.compression.Compression.default.withRequestDecoding(limit)
    )
    withServerConfig(TestServerConfig(serverOptions = options))(endpoints*)(body)

  private def gzip(bytes: Array[Byte]): Array[Byte] = encoded(bytes, GZIPOutputStream(_))
  private def zlib(bytes: Array[Byte]): Array[Byte] = encoded(bytes, DeflaterOutputStream(_))

  private def encoded(bytes: Array[Byte], coding: java.io.OutputStream => java.io.OutputStream): Array[Byte] =
    val out = java.io.ByteArrayOutputStream()
    val z = coding(out)
    z.write(bytes)
    z.close()
    out.toByteArray

  /**
   * A gzip member of `mebibytes` MiB of zeros, built from one MiB's deflate blocks repeated: a full flush empties the
   * compressor's window, so each copy refers to nothing before it. Deflating the whole took seconds of a kit's CPU.
   */
  private def gzipOfZeros(mebibytes: Int): Array[Byte] =
    val zeros = new Array[Byte](1 << 20)
    val deflater = java.util.zip.Deflater(java.util.zip.Deflater.DEFAULT_COMPRESSION, true)
    // Called again while it fills the buffer (a flush), or until it has finished (the last block)
    def drain(flush: Int): Array[Byte] =
      val out = java.io.ByteArrayOutputStream()
      val buffer = new Array[Byte](1 << 16)
      var more = true
      while more do
        val n = deflater.deflate(buffer, 0, buffer.length, flush)
        out.write(buffer, 0, n)
        more = n == buffer.length || (flush == java.util.zip.Deflater.NO_FLUSH && !deflater.finished)
      out.toByteArray
    deflater.setInput(zeros)
    val mebibyte = drain(java.util.zip.Deflater.FULL_FLUSH)
    deflater.finish()
    val last = drain(java.util.zip.Deflater.NO_FLUSH)
    deflater.end()
    val crc = java.util.zip.CRC32()
    for _ <- 1 to mebibytes do crc.update(zeros)
    val trailer = ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    trailer.putInt(crc.getValue.toInt).putInt((mebibytes.toLong << 20).toInt)
    val out = java.io.ByteArrayOutputStream()
    out.write(Array[Byte](0x1f, 0x8b.toByte, 8, 0, 0, 0, 0, 0, 0, 0xff.toByte))
    for _ <- 1 to mebibytes do out.write(mebibyte)
    out.write(last)
    out.write(trailer.array)
    out.toByteArray

  private val echo =
    endpoint.post.in("gz" / "echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)
  private val counting = endpoint.post
    .in("gz" / "count")
    .in(inputStreamBody)
    .out(stringBody)
    .serverLogicSuccess(in =>
      Future(in.transferTo(java.io.OutputStream.nullOutputStream()).toString)(using
        scala.concurrent.ExecutionContext.global
      )
    )

  private def gunzip(bytes: Array[Byte]): String =
    String(GZIPInputStream(ByteArrayInputStream(bytes)).readAllBytes(), UTF_8)
  private def inflate(bytes: Array[Byte]): String =
    String(InflaterInputStream(ByteArrayInputStream(bytes)).readAllBytes(), UTF_8)

  private def get(t: Target, path: String, acceptEncoding: String*): TestResponse =
    t.get(path, acceptEncoding.map("Accept-Encoding" -> _)*)

  test(anyStyle("compression: a body is gzip-encoded when asked, decodes to what the logic answered, and says Vary")):
    withCompression(json) { t =>
      val r = get(t, "/gz/json", "gzip, deflate")
      assertEquals((r.status, r.header("Content-Encoding")), (200, Some("gzip")))
      assertEquals(gunzip(r.bytes), text)
      assert(r.bytes.length < text.length / 3, s"${r.bytes.length} bytes for ${text.length}")
      assertEquals(r.header("Content-Length"), Some(r.bytes.length.toString))
      assertEquals(r.headerValues("Vary"), List("Accept-Encoding"))
      val raw = t.raw()
      try
        raw.send("GET /gz/json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
        assertEquals(gunzip(raw.readResponse().bytes), text)
      finally raw.close()
    }

  test(anyStyle("compression: the weights of Accept-Encoding choose the coding, or none, as RFC 9110 says")):
    withCompression(json, small) { t =>
      def coding(path: String, accept: String*) = get(t, path, accept*).header("Content-Encoding")
      assertEquals(inflate(get(t, "/gz/json", "deflate").bytes), text)
      assertEquals(coding("/gz/json", "gzip;q=0.5, deflate;q=0.9"), Some("deflate"))
      assertEquals(coding("/gz/json", "gzip;q=0, *"), Some("deflate"))
      assertEquals(coding("/gz/json", "*;q=0.5"), Some("gzip"))
      assertEquals(coding("/gz/json", "x-gzip"), Some("gzip"))
      assertEquals(coding("/gz/json", "identity"), None)
      assertEquals(coding("/gz/json", "br"), None)
      assertEquals(coding("/gz/json", "gzip;q=0"), None)
      assertEquals(coding("/gz/json", "GZIP;Q=1"), Some("gzip"))
      val unasked = get(t, "/gz/json")
      assertEquals(
        (unasked.header("Content-Encoding"), unasked.body, unasked.header("Vary")),
        (None, text, Some("Accept-Encoding"))
      )
      // Below the minimum size, unless the identity coding is refused
      assertEquals(coding("/gz/small", "gzip"), None)
      val refused = get(t, "/gz/small", "gzip, identity;q=0")
      assertEquals((refused.header("Content-Encoding"), gunzip(refused.bytes)), (Some("gzip"), "tiny"))
      assertEquals(coding("/gz/small", "gzip, *;q=0"), Some("gzip"))
    }

  test(anyStyle("compression: never for bytes of no known kind, a body already encoded or a file; HEAD as GET")):
    val file = Files.createTempFile("rapier-gz", ".txt")
    Files.writeString(file, text)
    val fromFile = endpoint.get.in("gz" / "file").out(fileBody).serverLogicSuccess(_ => Future.successful(file))
    try
      withCompression(json, binary, encoded, fromFile) { t =>
        val bytes = get(t, "/gz/binary", "gzip")
        assertEquals((bytes.header("Content-Encoding"), bytes.header("Vary")), (None, None))
        val already = get(t, "/gz/encoded", "gzip")
        assertEquals((already.header("Content-Encoding"), already.body), (Some("identity-ish"), text))
        val sent = get(t, "/gz/file", "gzip")
        assertEquals((sent.header("Content-Encoding"), sent.body), (None, text))
        val head = t.send("HEAD", "/gz/json", null, "Accept-Encoding" -> "gzip")
        val whole = get(t, "/gz/json", "gzip")
        assertEquals(
          (head.header("Content-Encoding"), head.header("Vary"), head.header("Content-Length")),
          (whole.header("Content-Encoding"), whole.header("Vary"), whole.header("Content-Length"))
        )
      }
    finally Files.deleteIfExists(file)

  test("compression: a streamed body is encoded as it streams, each piece readable before the next is made"):
    val firstRead = CountDownLatch(1)
    val pieces: Flow.Publisher[ByteBuffer] = subscriber =>
      subscriber.onSubscribe(new Flow.Subscription:
        private var sent = 0
        def request(n: Long): Unit = synchronized {
          var left = n
          while left > 0 && sent < 3 do
            sent += 1
            left -= 1
            sent match
              case 1 => subscriber.onNext(ByteBuffer.wrap(s"first piece $text".getBytes(UTF_8)))
              case 2 =>
                // The next piece waits until the client has decoded the first.
                val thread = Thread(() =>
                  firstRead.await(10, TimeUnit.SECONDS)
                  subscriber.onNext(ByteBuffer.wrap("second piece".getBytes(UTF_8)))
                  subscriber.onComplete()
                )
                thread.start()
              case _ => ()
        }
        def cancel(): Unit = ())
    val streamed = endpoint.get
      .in("gz" / "stream")
      .out(header("Content-Type", "text/plain; charset=UTF-8"))
      .out(publisherBody)
      .serverLogicSuccess(_ => Future.successful(pieces))
    withCompression(streamed) { t =>
      val raw = t.raw()
      try
        raw.send("GET /gz/stream HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
        val head = raw.readResponse(head = true)
        assertEquals(
          (head.header("Content-Encoding"), head.header("Transfer-Encoding")),
          (Some("gzip"), Some("chunked"))
        )
        val all = java.io.ByteArrayOutputStream()
        def chunk(): Array[Byte] =
          val size = Integer.parseInt(raw.readLine().nn.trim, 16)
          val bytes = raw.readBytes(size)
          raw.readLine()
          all.write(bytes)
          bytes
        // The first chunk alone decodes to the first piece: gzip's header, then deflate flushed at the piece's end.
        val inflater = Inflater(true)
        val first = chunk()
        inflater.setInput(first, 10, first.length - 10)
        val out = new Array[Byte](64 * 1024)
        val n = inflater.inflate(out)
        inflater.end()
        assertEquals(String(out, 0, n, UTF_8), s"first piece $text")
        firstRead.countDown()
        var last = chunk()
        while last.nonEmpty do last = chunk()
        assertEquals(gunzip(all.toByteArray), s"first piece ${text}second piece")
      finally raw.close()
    }

  test(
    anyStyle("compression: a gzip or deflate request body is decoded before its endpoint reads it; other codings 415")
  ):
    decoding(1 << 20)(echo, counting) { t =>
      val body = text.getBytes(UTF_8)
      def post(path: String, bytes: Array[Byte], coding: String) =
        t.send("POST", path, bytes, "Content-Encoding" -> coding, "Content-Type" -> "text/plain")
      assertEquals(post("/gz/echo", gzip(body), "gzip").body, text)
      assertEquals(post("/gz/echo", zlib(body), "deflate").body, text)
      assertEquals(post("/gz/echo", gzip(body) ++ gzip("and more".getBytes(UTF_8)), "x-gzip").body, text + "and more")
      assertEquals(post("/gz/count", gzip(body), "gzip").body, body.length.toString)
      assertEquals(post("/gz/echo", body, "identity").body, text)
      val unknown = post("/gz/echo", body, "br")
      assertEquals((unknown.status, unknown.header("Accept-Encoding")), (415, Some("gzip, deflate")))
      val corrupt = gzip(body)
      corrupt(corrupt.length / 2) = (corrupt(corrupt.length / 2) ^ 0x55).toByte
      assertEquals(post("/gz/echo", corrupt, "gzip").status, 400)
      assertEquals(post("/gz/echo", gzip(body).dropRight(4), "gzip").status, 400)
      assertEquals(post("/gz/echo", body, "gzip").status, 400)
    }

  test(
    anyStyle("compression: decoded request bodies are taken from the server's body budget as they grow, past it 503")
  ):
    // Six bodies that decode to 1.5 MiB each, held at once by logic that waits for the others: 9 MiB, a budget of 4
    val reached = java.util.concurrent.atomic.AtomicInteger()
    val gate = scala.concurrent.Promise[Unit]()
    val held = endpoint.post.in("gz" / "held").in(byteArrayBody).out(stringBody).serverLogicSuccess[Future] { bytes =>
      reached.incrementAndGet()
      gate.future.map(_ => bytes.length.toString)(using scala.concurrent.ExecutionContext.parasitic)
    }
    val options = ServerOptions.default.withoutRequestLog.withCompression(
      rapier.server.compression.Compression.default.withRequestDecoding(2L << 20)
    )
    val config = TestServerConfig(serverOptions = options, maxBodySize = 1L << 20, maxBodyMemory = Some(4L << 20))
    withServerConfig(config)(held) { t =>
      val body = gzip(Array.fill[Byte](3 << 19)('d'))
      given scala.concurrent.ExecutionContext = scala.concurrent.ExecutionContext.global
      val answers = (1 to 6).map(_ =>
        Future(t.send("POST", "/gz/held", body, "Content-Encoding" -> "gzip", "Content-Type" -> "text/plain"))
      )
      eventually(reached.get + answers.count(_.isCompleted) == 6, "each body held by its logic, or refused")
      gate.success(())
      val done = answers.map(scala.concurrent.Await.result(_, 30.seconds))
      val refused = done.filter(_.status == 503)
      assert(refused.nonEmpty, s"9 MiB of decoded bodies held against a 4 MiB budget: ${done.map(_.status)}")
      assert(refused.forall(_.header("Retry-After").isDefined), refused.map(_.headers).mkString)
      val served = done.filter(_.status == 200)
      assert(served.nonEmpty && served.forall(_.body == (3 << 19).toString), done.map(_.status).toString)
      eventually(t.bodyBytesHeld == 0, "every decoded body given back")
    }

  test(
    anyStyle("compression: a decompression bomb (1 GiB decoded) is a 413 at the decoded limit, the heap never near it")
  ):
    val bomb = gzipOfZeros(mebibytes = 1024)
    val pools = java.lang.management.ManagementFactory.getMemoryPoolMXBeans.toArray.toList
      .map(_.asInstanceOf[java.lang.management.MemoryPoolMXBean])
      .filter(_.getType == java.lang.management.MemoryType.HEAP)
    decoding(1 << 20)(echo, counting) { t =>
      for path <- List("/gz/echo", "/gz/count") do
        System.gc()
        val before = pools.map(_.getUsage.getUsed).sum
        pools.foreach(_.resetPeakUsage())
        val r = t.send("POST", path, bomb, "Content-Encoding" -> "gzip", "Content-Type" -> "text/plain")
        val peak = pools.map(_.getPeakUsage.getUsed).sum - before
        assertEquals(r.status, 413, path)
        assert(peak < (256L << 20), s"$path: the heap grew by ${peak >> 20} MiB for ${bomb.length >> 10} KiB of body")
      assertEquals(t.post("/gz/echo", "still here").body, "still here")
    }
