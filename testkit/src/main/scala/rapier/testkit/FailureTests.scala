package rapier.testkit

import org.slf4j.event.Level
import rapier.*
import rapier.model.*
import rapier.server.*
import rapier.server.interceptor.*

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future, Promise}

/** What happens when logic fails or inputs don't decode, security, and the interceptor chain around endpoints. */
trait FailureTests extends ServerTestSupport:
  private given ExecutionContext = ExecutionContext.global

  private val throwing = endpoint.get.in("throw").out(stringBody).serverLogicSuccess[Future] { _ =>
    throw IllegalStateException("secret internal detail")
  }
  private val failing = endpoint.get.in("fail").out(stringBody).serverLogicSuccess[Future] { _ =>
    Future(throw IllegalStateException("secret async detail"))
  }

  test("logic that throws is a 500 with a generic body"):
    withServer(throwing) { t =>
      val r = t.get("/throw")
      assertEquals((r.status, r.problem.title), (500, "Internal Server Error"))
      assert(!r.body.contains("secret"))
    }

  test("logic whose future fails is a 500 with a generic body"):
    withServer(failing) { t =>
      val r = t.get("/fail")
      assertEquals((r.status, r.problem.title), (500, "Internal Server Error"))
    }

  test("the connection survives a 500"):
    withServer(throwing) { t =>
      val c = t.raw()
      try
        for _ <- 1 to 3 do
          c.send("GET /throw HTTP/1.1\r\nHost: x\r\n\r\n")
          assertEquals(c.readResponse().status, 500)
      finally c.close()
    }

  test("no error body carries a stack trace or an exception's message, whatever threw"):
    def secret(n: Int): Nothing = throw IllegalStateException(s"secret $n")
    val endpoints = List(
      throwing,
      failing,
      endpoint.get.in("output").out(stringBody.map[String](identity)(_ => secret(3))).serverLogicSuccess[Future] { _ =>
        Future.successful("x")
      },
      endpoint.get.in("input").in(query[String]("q").map[String](_ => secret(4))(identity)).out(stringBody)
        .serverLogicSuccess[Future](Future.successful),
      endpoint.securityIn(header[String]("X-Key")).get.in("security").out(stringBody)
        .serverSecurityLogic[String, Future](_ => secret(5))
        .serverLogicSuccess((_, _) => Future.successful("x"))
    )
    def clean(r: TestResponse, what: String): Unit =
      for leak <- List("secret", "Exception", "\tat ", ".scala", "java.") do
        assert(!r.body.contains(leak), s"$what: the body shows '$leak': ${r.body}")
    withServer(endpoints*) { t =>
      for (path, headers) <- List(
          "/throw" -> Nil,
          "/fail" -> Nil,
          "/output" -> Nil,
          "/input?q=1" -> Nil,
          "/security" -> List("X-Key" -> "k")
        )
      do
        val r = t.get(path, headers*)
        assertEquals(r.status, 500, path)
        clean(r, path)
    }
    val throwingHandler: ExceptionHandler = (_, _, _, _) => secret(6)
    val config =
      TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withExceptionHandler(throwingHandler))
    withServerConfig(config)(throwing) { t =>
      val r = t.get("/throw")
      assertEquals(r.status, 500)
      clean(r, "a throwing exception handler")
    }

  test("a custom exception handler decides the response"):
    val handler: ExceptionHandler = (route, _, e, _) =>
      val label = route match
        case Route.ToEndpoint(_, l) => l
        case Route.Rejected => "-"
      ServerResponse.text(StatusCode.ServiceUnavailable, s"$label: ${e.getClass.getSimpleName}")
    val config = TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withExceptionHandler(handler))
    withServerConfig(config)(throwing) { t =>
      val r = t.get("/throw")
      assertEquals((r.status, r.body), (503, "GET /throw: IllegalStateException"))
    }

  test("a custom decode failure handler decides the response"):
    val handler: DecodeFailureHandler = (f, _) =>
      ServerResponse.text(StatusCode.UnprocessableContent, f.failures.map(_.input.location).mkString(","))
    val e = endpoint.get.in("q").in(query[Int]("a")).in(header[Int]("X-B")).out(stringBody)
    val config =
      TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withDecodeFailureHandler(handler))
    withServerConfig(config)(e.serverLogicSuccess(_ => Future.successful("ok"))) { t =>
      val r = t.get("/q?a=x")
      assertEquals((r.status, r.body), (422, "query.a,header.X-B"))
    }

  test("a custom reject handler decides 404 and 405 responses"):
    val handler: RejectHandler = (rejection, _) =>
      rejection match
        case Rejection.MethodNotAllowed(allowed) =>
          ServerResponse.text(StatusCode.MethodNotAllowed, allowed.mkString("+"))
        case other => ServerResponse.text(StatusCode.NotFound, s"nothing here ($other)")
    val config = TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withRejectHandler(handler))
    withServerConfig(config)(endpoint.get.in("x").serverLogicSuccess(_ => Future.successful(()))) { t =>
      assertEquals(t.get("/y").body, "nothing here (NotFound)")
      assertEquals(t.post("/x", "").body, "GET+HEAD")
    }

  private val keys = endpoint
    .securityIn(header[Option[String]]("Authorization"))
    .errorOut(statusCode.and(stringBody))

  private def secured(bodyDecodes: AtomicInteger) = keys.post
    .in("secret")
    .in(stringBody.map { s => bodyDecodes.incrementAndGet(); s }(identity))
    .out(stringBody)
    .serverSecurityLogic[String, Future] {
      case Some("Bearer good") => Future.successful(Right("alice"))
      case Some("Bearer later") => Future(Right("bob"))
      case Some(_) => Future.successful(Left((StatusCode.Forbidden, "forbidden")))
      case None => Future.successful(Left((StatusCode.Unauthorized, "who are you?")))
    }
    .serverLogicSuccess((user, body) => Future.successful(s"$user says $body"))

  test("security logic gives the principal to the main logic"):
    withServer(secured(AtomicInteger())) { t =>
      assertEquals(t.post("/secret", "hi", "Authorization" -> "Bearer good").body, "alice says hi")
      assertEquals(t.post("/secret", "yo", "Authorization" -> "Bearer later").body, "bob says yo")
    }

  test("rejected credentials get the security logic's error, and the body is never decoded"):
    val decodes = AtomicInteger()
    withServer(secured(decodes)) { t =>
      val forbidden = t.post("/secret", "hi", "Authorization" -> "Bearer bad")
      assertEquals((forbidden.status, forbidden.body), (403, "forbidden"))
      val missing = t.post("/secret", "hi")
      assertEquals((missing.status, missing.body), (401, "who are you?"))
      assertEquals(decodes.get, 0)
      t.post("/secret", "hi", "Authorization" -> "Bearer good")
      assertEquals(decodes.get, 1)
    }

  test("a security input that fails to decode is a 401"):
    val e = endpoint.securityIn(header[Int]("X-Key")).get.in("k").out(stringBody)
    val se = e.serverSecurityLogic[Int, Future](k => Future.successful(Right(k))).serverLogicSuccess((k, _) =>
      Future.successful(k.toString)
    )
    withServer(se) { t =>
      val r = t.get("/k")
      assertEquals((r.status, r.problem.detail), (401, "Invalid request: header 'X-Key' is missing"))
      assertEquals(t.get("/k", "X-Key" -> "7").body, "7")
    }

  test("several security inputs reach the security logic together, and all their failures are reported"):
    val e = endpoint
      .securityIn("tenants" / path[String]("tenant"))
      .securityIn(header[String]("X-User"))
      .securityIn(query[Option[Int]]("level"))
      .get
      .in("data" / path[Int]("n"))
      .out(stringBody)
    val se = e
      .serverSecurityLogic[String, Future]((tenant, user, level) => Future.successful(Right(s"$user@$tenant:$level")))
      .serverLogicSuccess((who, n) => Future.successful(s"$who/$n"))
    withServer(se) { t =>
      assertEquals(t.get("/tenants/acme/data/3?level=2", "X-User" -> "ann").body, "ann@acme:Some(2)/3")
      assertEquals(t.get("/tenants/acme/data/3", "X-User" -> "ann").body, "ann@acme:None/3")
      val r = t.get("/tenants/acme/data/3?level=x")
      assertEquals(r.status, 401)
      assert(r.body.contains("header 'X-User' is missing"), r.body)
      assert(r.body.contains("query parameter 'level' is invalid"), r.body)
    }

  test("the request log writes one line per request with template, status and duration"):
    val logger = CapturingLogger()
    val config = TestServerConfig(serverOptions = ServerOptions.default.withRequestLog(RequestLog(logger, Level.INFO)))
    val e = endpoint.get.in("books" / path[Int]("id")).out(stringBody).serverLogicSuccess(i => Future.successful(s"$i"))
    withServerConfig(config)(e) { t =>
      t.get("/books/7")
      t.get("/books/x")
      t.get("/elsewhere%0d%0a")
    }
    val lines = logger.written.map(_._2)
    assertEquals(lines.size, 3, lines)
    assert(lines(0).matches("""GET /books/\{id\} 200 \d+\.\d{3}ms"""), lines(0))
    assert(lines(1).matches("""GET /books/\{id\} 400 \d+\.\d{3}ms"""), lines(1))
    assert(lines(2).matches("""GET /elsewhere%0d%0a 404 \d+\.\d{3}ms"""), lines(2))

  test("a request log whose level is off writes and formats nothing"):
    val logger = CapturingLogger(enabled = Set(Level.ERROR))
    val config = TestServerConfig(serverOptions = ServerOptions.default.withRequestLog(RequestLog(logger, Level.DEBUG)))
    withServerConfig(config)(endpoint.get.in("x").serverLogicSuccess(_ => Future.successful(()))) { t =>
      for _ <- 1 to 5 do t.get("/x")
    }
    assertEquals(logger.written, Nil)
    assertEquals(logger.asked, 5)

  test("interceptors see the route once at start and wrap every request"):
    val built = AtomicInteger()
    val stamp = new Interceptor:
      def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
        built.incrementAndGet()
        val label = route match
          case Route.ToEndpoint(_, l) => l
          case Route.Rejected => "rejected"
        request => m.map(next(request))(_.withHeader("X-Route", label))
    val config = TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withInterceptor(stamp))
    val a = endpoint.get.in("a" / path[Int]("n")).serverLogicSuccess(_ => Future.successful(()))
    withServerConfig(config)(a) { t =>
      assertEquals(t.get("/a/1").header("X-Route"), Some("GET /a/{n}"))
      assertEquals(t.get("/a/2").header("X-Route"), Some("GET /a/{n}"))
      assertEquals(t.get("/b").header("X-Route"), Some("rejected"))
    }
    assertEquals(built.get, 2)

  test("logic that answers later is awaited"):
    val gate = Promise[String]()
    val e = endpoint.get.in("later").out(stringBody).serverLogicSuccess(_ => gate.future)
    withServer(e) { t =>
      val response = Future(t.get("/later"))
      Thread.sleep(200)
      assert(!response.isCompleted)
      gate.success("finally")
      assertEquals(await(response, "the response once its logic completes").body, "finally")
    }
