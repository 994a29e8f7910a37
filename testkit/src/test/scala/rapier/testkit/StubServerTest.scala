package rapier.testkit

import rapier.*
import rapier.model.StatusCode
import rapier.server.*
import rapier.server.spi.{BodyReceiver, BodySource, BodyTooLargeException, ServerRequest}

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future}

/** The interpreter in memory: direct style, a body read asynchronously, and the stub users test with. */
class StubServerTest extends munit.FunSuite:
  private given ExecutionContext = ExecutionContext.global

  private val add = endpoint.get.in("add" / path[Int]("a") / path[Int]("b")).out(stringBody)

  test("direct style: logic returns plain values"):
    val stub = StubServer[Identity](List(add.serverLogicSuccess[Identity]((a, b) => (a + b).toString)))
    val r = stub.send(StubRequest.get("/add/2/40"))
    assertEquals((r.status, r.bodyText), (200, "42"))
    assertEquals(stub.send(StubRequest.get("/add/2/x")).status, 400)
    assertEquals(stub.send(StubRequest.get("/sub/1/2")).status, 404)

  test("direct style: logic that throws is a 500"):
    val stub = StubServer[Identity](List(add.serverLogicSuccess[Identity](_ => throw RuntimeException("boom"))))
    assertEquals(stub.send(StubRequest.get("/add/1/2")).status, 500)

  test("futures: the stub waits for the answer"):
    val stub = StubServer(List(add.serverLogicSuccess[Future]((a, b) => Future((a * b).toString))))
    assertEquals(stub.sendAndWait(StubRequest.get("/add/6/7")).bodyText, "42")

  test("headers and bodies reach the logic"):
    val e = endpoint.post.in("echo").in(header[String]("X-Who")).in(stringBody).out(stringBody)
    val stub = StubServer[Identity](List(e.serverLogicSuccess[Identity]((who, body) => s"$who: $body")))
    assertEquals(stub.send(StubRequest.post("/echo", "hi").header("X-Who", "ann")).bodyText, "ann: hi")

  test("routeOrNull: the chain for a request an endpoint takes, null for any other, the request otherwise untouched"):
    val interpreter = ServerInterpreter[Identity](
      List(add.serverLogicSuccess[Identity]((a, b) => (a + b).toString)),
      ServerOptions.default.withoutRequestLog
    )
    val request = StubRequest.get("/add/40/2?x=1")
    val chain = interpreter.routeOrNull(request)
    assert(chain != null)
    assertEquals(chain.nn(request).bodyText, "42")
    assertEquals(interpreter.routeOrNull(StubRequest.get("/add/1")), null)
    assertEquals(interpreter.routeOrNull(StubRequest(methodName = "POST", uri = "/add/1/2")), null)
    assertEquals(interpreter.routeOrNull(StubRequest(methodName = "OPTIONS", uri = "*")), null)
    // Routing is by shape: a capture that does not decode is the endpoint's 400, not a miss.
    val bad = StubRequest.get("/add/x/2")
    assertEquals(interpreter.routeOrNull(bad).nn(bad).status, 400)

  /**
   * A request whose backend reads its body only when asked, in chunks of 2 bytes from another thread, with a limit:
   * the interpreter's path for bodies read on demand.
   */
  private final class LazyRequest(stub: StubRequest, limit: Int, reads: AtomicInteger) extends ServerRequest:
    def method = stub.method
    def uri = stub.uri
    def protocol = stub.protocol
    def headerOrNull(name: String) = stub.headerOrNull(name)
    def headerValues(name: String) = stub.headerValues(name)
    def headers = stub.headers
    def remoteAddressOrNull = null
    def bodyOrNull = null
    override def bodySource: BodySource =
      reads.incrementAndGet()
      new BodySource:
        private var at = 0
        def declaredLength = -1L
        def cancel() = ()
        def pull(receiver: BodyReceiver) = Future {
          Thread.sleep(2)
          if at >= stub.body.length then receiver.onEnd()
          else if at + 2 > limit then receiver.onError(BodyTooLargeException(limit))
          else
            val n = math.min(2, stub.body.length - at)
            at += n
            receiver.onChunk(java.nio.ByteBuffer.wrap(stub.body, at - n, n))
        }

  test("a body read asynchronously, only after security passed; also when other inputs fail, to report all"):
    val reads = AtomicInteger()
    val e = endpoint
      .securityIn(header[String]("X-Key"))
      .post
      .in("upload")
      .in(query[Int]("n"))
      .in(byteArrayBody)
      .out(stringBody)
      .serverSecurityLogic[String, Future](k => Future.successful(if k == "ok" then Right(k) else Left(())))
      .serverLogicSuccess((_, in) => Future.successful(s"${in._1}:${in._2.length}"))
    val interpreter = ServerInterpreter(List(e), ServerOptions.default.withoutRequestLog)
    def send(r: StubRequest) =
      scala.concurrent.Await.result(interpreter(LazyRequest(r, 10, reads)), scala.concurrent.duration.Duration(5, "s"))
    val upload = StubRequest("POST", "/upload?n=3").withBody("12345")
    assertEquals(send(upload.header("X-Key", "ok")).bodyText, "3:5")
    assertEquals(reads.get, 1)
    assertEquals(send(upload.header("X-Key", "bad")).status, 400)
    // A request whose other inputs fail has its body read too, so that the 400 reports every failure
    assertEquals(send(StubRequest("POST", "/upload?n=x").withBody("1").header("X-Key", "ok")).status, 400)
    assertEquals(reads.get, 2)
    val tooBig = send(StubRequest("POST", "/upload?n=1").withBody("x" * 11).header("X-Key", "ok"))
    assertEquals(
      (tooBig.status, tooBig.bodyText.contains("The body is larger than the limit of 10 bytes.")),
      (StatusCode.ContentTooLarge.code, true)
    )

  test("direct style: a body read on demand, delivered before each pull returns, in 200,000 chunks of one byte"):
    val e = endpoint.post.in("count").in(byteArrayBody).out(stringBody)
    val interpreter = ServerInterpreter[Identity](
      List(e.serverLogicSuccess[Identity](bytes => s"${bytes.length} ${bytes.count(_ == 'x')}")),
      ServerOptions.default.withoutRequestLog
    )
    val body = Array.fill[Byte](200000)('x')
    val request = new ServerRequest:
      def method = rapier.model.Method.POST
      def uri = "/count"
      def protocol = "HTTP/1.1"
      def headerOrNull(name: String) = null
      def headerValues(name: String) = Nil
      def headers = Nil
      def remoteAddressOrNull = null
      def bodyOrNull = null
      override def bodySource: BodySource = new BodySource:
        private var at = 0
        def declaredLength = body.length.toLong
        def cancel() = ()
        // Answers at once, on the caller's stack: reading must not recurse once per chunk.
        def pull(receiver: BodyReceiver) =
          if at == body.length then receiver.onEnd()
          else
            at += 1
            receiver.onChunk(java.nio.ByteBuffer.wrap(body, at - 1, 1))
    assertEquals(interpreter(request).bodyText, "200000 200000")

  test("direct style: a body read as an InputStream or a Publisher, from a request held in memory"):
    val count = endpoint.post.in("count").in(inputStreamBody).out(stringBody)
    val chunks = endpoint.post.in("chunks").in(publisherBody).out(stringBody)
    val stub = StubServer[Identity](
      List(
        count.serverLogicSuccess[Identity](in => in.readAllBytes().length.toString),
        chunks.serverLogicSuccess[Identity] { p =>
          val seen = java.util.concurrent.CompletableFuture[Int]()
          p.subscribe(new java.util.concurrent.Flow.Subscriber[java.nio.ByteBuffer]:
            private var n = 0
            def onSubscribe(s: java.util.concurrent.Flow.Subscription): Unit = s.request(Long.MaxValue)
            def onNext(b: java.nio.ByteBuffer): Unit = n += b.remaining
            def onError(t: Throwable): Unit = seen.completeExceptionally(t)
            def onComplete(): Unit = seen.complete(n))
          seen.get().toString
        }
      )
    )
    assertEquals(stub.send(StubRequest.post("/count", "hello")).bodyText, "5")
    assertEquals(stub.send(StubRequest.post("/chunks", "hello world")).bodyText, "11")
    assertEquals(stub.send(StubRequest.post("/chunks", "")).bodyText, "0")
