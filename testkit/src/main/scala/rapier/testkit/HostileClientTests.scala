package rapier.testkit

import rapier.*
import rapier.server.*

import java.nio.charset.StandardCharsets.US_ASCII
import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.concurrent.Future

/**
 * Clients that try to exhaust a server rather than use it: bodies announced and never sent, bodies past the server's
 * memory budget, bodies in 1-byte chunks, responses pipelined and never read. Each case checks that the server's memory
 * stays bounded — by its own count of the body bytes it holds, and by the heap this JVM (the server's, in the kit)
 * still uses after a collection — and that a well-behaved client on another connection is answered promptly meanwhile.
 */
trait HostileClientTests extends ServerTestSupport:

  private val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess(_ => Future.successful("hello"))
  private val digest = endpoint.post.in("digest").in(byteArrayBody).out(stringBody).serverLogicSuccess { b =>
    Future.successful(Sha256.of(b))
  }
  private val large = endpoint.get.in("l").out(byteArrayBody).serverLogicSuccess { _ =>
    Future.successful(new Array[Byte](256 * 1024))
  }
  @volatile private var file: Path = Path.of("nowhere")
  private val fromFile = endpoint.get.in("f").out(fileBody).serverLogicSuccess(_ => Future.successful(file))

  /** `/hello` on a new connection answers within 2 s. */
  private def answersPromptly(t: Target): Unit =
    val start = System.nanoTime()
    assertEquals(t.get("/hello").body, "hello")
    val took = (System.nanoTime() - start).nanos
    assert(took < 2.seconds, s"a well-behaved client waited ${took.toMillis} ms")

  test(anyStyle("bodies announced at the limit and never sent hold what arrived, not what was announced")):
    val limit = 4 * 1024 * 1024
    withServerConfig(TestServerConfig(maxBodySize = limit))(hello, digest) { t =>
      val before = RetainedHeap.now()
      val announced = (1 to 200).map { _ =>
        t.raw().send(s"POST /digest HTTP/1.1\r\nHost: x\r\nContent-Length: $limit\r\n\r\nx")
      }
      try
        eventually(t.bodyBytesHeld > 0, "the bodies' first bytes are held")
        Thread.sleep(200)
        val held = t.bodyBytesHeld
        assert(held <= 200L * 64 * 1024, s"the server holds $held bytes for 200 bytes of bodies")
        val grown = RetainedHeap.now() - before
        // 800 MiB announced: what is left is the 64 KiB each body may hold at first, and the server's own state and
        // buffers for each connection (Ember reads into 256 KiB each)
        assert(grown < (128L << 20), s"the heap grew by ${grown >> 20} MiB")
        answersPromptly(t)
      finally announced.foreach(_.close())
      eventually(t.bodyBytesHeld == 0, "nothing is held once the connections are gone")
    }

  test(anyStyle("a body past the server's memory budget is a 503 with Retry-After, and served once there is room")):
    val limit = 1024 * 1024
    withServerConfig(TestServerConfig(maxBodySize = limit, maxBodyMemory = Some(limit)))(hello, digest) { t =>
      val first = t.raw()
      try
        // A sixteenth of the body has arrived: its array is the whole declared length, the whole budget.
        first.send(s"POST /digest HTTP/1.1\r\nHost: x\r\nContent-Length: $limit\r\n\r\n").send(new Array[Byte](limit /
          8))
        eventually(t.bodyBytesHeld == limit, "the first body holds the whole budget")
        val refused = t.post("/digest", "small body")
        assertEquals(refused.status, 503)
        assertEquals(refused.header("Retry-After"), Some("1"))
        assertEquals(refused.problem.detail, "The server holds too many request bodies to take this one now")
        answersPromptly(t)
        first.send(new Array[Byte](limit - limit / 8))
        val answered = first.readResponse()
        assertEquals(answered.body, Sha256.of(new Array[Byte](limit)))
        eventually(t.bodyBytesHeld == 0, "the first body is handed over")
        assertEquals(t.post("/digest", "small body").body, Sha256.of("small body".getBytes(US_ASCII)))
      finally first.close()
    }

  test(anyStyle("a body in 1-byte chunks is read whole, holding no more than twice its size")):
    withServer(hello, digest) { t =>
      val body = Array.tabulate[Byte](256 * 1024)(i => ('a' + i % 26).toByte)
      val c = t.raw()
      try
        c.send("POST /digest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        var most = 0L
        body.grouped(4096).foreach { piece =>
          val chunks = java.io.ByteArrayOutputStream(piece.length * 6)
          piece.foreach { b =>
            chunks.write(Array[Byte]('1', '\r', '\n', b, '\r', '\n'))
          }
          c.send(chunks.toByteArray)
          most = most.max(t.bodyBytesHeld)
        }
        c.send("0\r\n\r\n")
        // Read once the body is sent: on a loaded machine sending 1.5 MB of framing alone can outlast a read's timeout
        assertEquals(c.readResponse().body, Sha256.of(body))
        assert(most <= 2L * body.length, s"the server held $most bytes of a body of ${body.length}")
        answersPromptly(t)
      finally c.close()
    }

  test(anyStyle("responses pipelined and never read: reading stops, memory and open files stay bounded")):
    val path = Files.createTempFile("rapier-hostile", ".bin")
    try
      Files.write(path, new Array[Byte](1024 * 1024))
      file = path
      withServer(hello, large, fromFile) { t =>
        val before = RetainedHeap.now()
        val requests = 2000
        val greedy = t.raw()
        val files = t.raw()
        try
          // Sent in one go each, as small as requests get, and never read: 500 MiB of answers from memory, 2 GiB from
          // the file.
          greedy.send("GET /l HTTP/1.1\r\nHost:x\r\n\r\n" * requests)
          files.send("GET /f HTTP/1.1\r\nHost:x\r\n\r\n" * requests)
          Thread.sleep(1000)
          if OpenFiles.available then
            val open = OpenFiles.on(path)
            assert(open <= 64, s"$open descriptors open on the file for a client that reads nothing")
          val grown = RetainedHeap.now() - before
          assert(grown < (64L << 20), s"the heap grew by ${grown >> 20} MiB")
          answersPromptly(t)
        finally
          greedy.close()
          files.close()
        if OpenFiles.available then eventually(OpenFiles.on(path) == 0, "the file is closed once its client is gone")
        answersPromptly(t)
      }
    finally Files.deleteIfExists(path)
