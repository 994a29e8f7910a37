package rapier.testkit

import rapier.*
import rapier.model.StatusCode
import rapier.server.*

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future, Promise}

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
      StubRequest.body[Identity],
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

  /** A backend that reads bodies only when asked, with a limit: the interpreter's asynchronous path. */
  private final class LazyBody(limit: Int, reads: AtomicInteger) extends RequestBody[Future]:
    def bytesIfRead(request: ServerRequest): Array[Byte] | Null = null
    def bytes(request: ServerRequest): Future[Array[Byte]] =
      reads.incrementAndGet()
      val body = request.asInstanceOf[StubRequest].body
      val later = Promise[Array[Byte]]()
      Future {
        Thread.sleep(20)
        if body.length > limit then later.failure(BodyTooLargeException(limit)) else later.success(body)
      }
      later.future

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
    val interpreter = ServerInterpreter(List(e), LazyBody(10, reads), ServerOptions.default.withoutRequestLog)
    def send(r: StubRequest) = scala.concurrent.Await.result(interpreter(r), scala.concurrent.duration.Duration(5, "s"))
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
