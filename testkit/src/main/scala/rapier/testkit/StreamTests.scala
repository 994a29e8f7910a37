package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.InputStream
import java.nio.ByteBuffer
import java.security.MessageDigest
import java.util.concurrent.{Executors, Flow}
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

  test("a streamed body over the limit is a 413"):
    withServerConfig(TestServerConfig(maxBodySize = 1024))(published) { t =>
      assertEquals(t.post("/stream/publisher", new Array[Byte](2048)).status, 413)
    }
