package rapier.testkit

import rapier.*
import rapier.model.Method
import rapier.server.*
import rapier.server.cors.Cors

import java.nio.charset.StandardCharsets
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.Future
import scala.concurrent.duration.*

/**
 * Cross-origin requests (`ServerOptions.withCors`), as the Fetch standard's CORS protocol has a browser make them:
 * preflights answered before any logic, the answers' headers by origin, 404 and 405 unchanged, and a real browser
 * (headless Chromium) calling from a page of one origin an API on another, once allowed and once refused.
 */
trait CorsTests extends ServerTestSupport:
  private val app = "http://app.example"
  private val cors = Cors.allowing(app).withCredentials.withExposedHeaders("X-Total").withMaxAge(10.minutes)

  private def withCors[T](c: Cors)(endpoints: ServerEndpoint[Future]*)(body: Target => T): T =
    withServerConfig(TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withCors(c)))(endpoints*)(
      body
    )

  private def counted(calls: AtomicInteger, e: Endpoint[Unit, Unit, Unit, Unit]) =
    e.out(stringBody).serverLogicSuccess(_ => Future.successful(s"call ${calls.incrementAndGet()}"))

  private def preflight(t: Target, path: String, method: String, headers: (String, String)*) =
    t.send("OPTIONS", path, null, (("Access-Control-Request-Method" -> method) +: headers)*)

  test(
    anyStyle("CORS: an allowed origin's answers carry its origin, credentials and exposed headers; others' nothing")
  ):
    val calls = AtomicInteger()
    val failing = endpoint.get.in("cors" / "fail").out(stringBody).serverLogicSuccess[Future](_ => sys.error("bug"))
    withCors(cors)(counted(calls, endpoint.get.in("cors" / "hello")), failing) { t =>
      val r = t.get("/cors/hello", "Origin" -> app)
      assertEquals(
        (r.status, r.body, r.header("Access-Control-Allow-Origin"), r.header("Access-Control-Allow-Credentials")),
        (200, "call 1", Some(app), Some("true"))
      )
      assertEquals(r.header("Access-Control-Expose-Headers"), Some("X-Total"))
      assertEquals(r.headerValues("Vary"), List("Origin"))
      // Another origin is served all the same (CORS is the browser's to enforce), without a header to let it read.
      val other = t.get("/cors/hello", "Origin" -> "http://evil.example")
      assertEquals((other.status, other.body, other.header("Access-Control-Allow-Origin")), (200, "call 2", None))
      assertEquals(other.headerValues("Vary"), List("Origin"))
      val none = t.get("/cors/hello")
      assertEquals((none.header("Access-Control-Allow-Origin"), none.headerValues("Vary")), (None, List("Origin")))
      // Errors carry them too, so that the page can read what went wrong.
      val failed = t.get("/cors/fail", "Origin" -> app)
      assertEquals((failed.status, failed.header("Access-Control-Allow-Origin")), (500, Some(app)))
    }

  test(anyStyle("CORS: Vary on Origin joins the response's own Vary line, and compression's")):
    val text = "varied " * 400
    val varied = endpoint.get
      .in("cors" / "varied")
      .out(header[String]("Vary"))
      .out(stringBody)
      .serverLogicSuccess[Future](_ => Future.successful(("Accept-Language", text)))
    val options = ServerOptions.default.withoutRequestLog.withCors(cors).withCompression()
    withServerConfig(TestServerConfig(serverOptions = options))(varied) { t =>
      val r = t.get("/cors/varied", "Origin" -> app, "Accept-Encoding" -> "gzip")
      assertEquals(r.header("Content-Encoding"), Some("gzip"))
      val lines = r.headerValues("Vary")
      assertEquals(lines.size, 1, lines)
      assertEquals(lines.head.split(',').map(_.trim).toSet, Set("Accept-Language", "Origin", "Accept-Encoding"))
    }

  test(anyStyle("CORS: a preflight is answered before any logic, with the path's methods and the headers asked for")):
    val calls = AtomicInteger()
    val endpoints = List(
      counted(calls, endpoint.get.in("cors" / "item")),
      counted(calls, endpoint.put.in("cors" / "item")),
      counted(calls, endpoint.options.in("cors" / "item"))
    )
    withCors(cors)(endpoints*) { t =>
      val r =
        preflight(t, "/cors/item", "PUT", "Origin" -> app, "Access-Control-Request-Headers" -> "X-Token, Content-Type")
      assertEquals((r.status, r.body), (204, ""))
      assertEquals(r.header("Access-Control-Allow-Origin"), Some(app))
      assertEquals(r.header("Access-Control-Allow-Credentials"), Some("true"))
      val methods = r.header("Access-Control-Allow-Methods").getOrElse("").split(", ").toSet
      assert(Set("GET", "PUT", "OPTIONS").subsetOf(methods), methods)
      assertEquals(r.header("Access-Control-Allow-Headers"), Some("x-token, content-type"))
      assertEquals(r.header("Access-Control-Max-Age"), Some("600"))
      assert(r.header("Vary").exists(_.contains("Origin")), r.headers)
      assertEquals(calls.get, 0, "a preflight ran logic")
      // Without Access-Control-Request-Method an OPTIONS is no preflight: its endpoint serves it.
      assertEquals(t.send("OPTIONS", "/cors/item", null, "Origin" -> app).body, "call 1")
    }

  test(anyStyle("CORS: a preflight for an origin, method or header not allowed is a 403 that says which")):
    val calls = AtomicInteger()
    val strict = Cors.allowing(app).withMethods(Method.GET, Method.POST).withHeaders("X-Token")
    withCors(strict)(counted(calls, endpoint.post.in("cors" / "strict"))) { t =>
      val origin = preflight(t, "/cors/strict", "POST", "Origin" -> "http://evil.example")
      assertEquals((origin.status, origin.header("Access-Control-Allow-Origin")), (403, None))
      assert(origin.problem.detail.contains("origin"), origin.body)
      val method = preflight(t, "/cors/strict", "DELETE", "Origin" -> app)
      assertEquals(method.status, 403)
      assert(method.problem.detail.contains("GET, POST"), method.body)
      val header = preflight(t, "/cors/strict", "POST", "Origin" -> app, "Access-Control-Request-Headers" -> "x-other")
      assertEquals(header.status, 403)
      assert(header.problem.detail.contains("x-token"), header.body)
      val fine = preflight(t, "/cors/strict", "POST", "Origin" -> app, "Access-Control-Request-Headers" -> "X-TOKEN")
      assertEquals((fine.status, fine.header("Access-Control-Allow-Methods")), (204, Some("GET, POST")))
      assertEquals(calls.get, 0)
    }

  test(
    anyStyle("CORS: 404 and 405 keep their statuses and carry the origin's headers; any origin is `*` without Vary")
  ):
    withCors(cors)(counted(AtomicInteger(), endpoint.get.in("cors" / "get"))) { t =>
      val missing = t.get("/cors/nothing", "Origin" -> app)
      assertEquals((missing.status, missing.header("Access-Control-Allow-Origin")), (404, Some(app)))
      val notAllowed = t.send("DELETE", "/cors/get", null, "Origin" -> app)
      assertEquals((notAllowed.status, notAllowed.header("Access-Control-Allow-Origin")), (405, Some(app)))
      assert(notAllowed.header("Allow").exists(_.contains("GET")), notAllowed.headers)
      assertEquals(preflight(t, "/cors/nothing", "GET", "Origin" -> app).status, 404)
    }
    withCors(Cors.anyOrigin)(counted(AtomicInteger(), endpoint.get.in("cors" / "public"))) { t =>
      val r = t.get("/cors/public", "Origin" -> "http://anyone.example")
      assertEquals((r.header("Access-Control-Allow-Origin"), r.header("Vary")), (Some("*"), None))
      assertEquals(r.header("Access-Control-Allow-Credentials"), None)
      val p = preflight(t, "/cors/public", "GET", "Origin" -> "http://anyone.example")
      assertEquals((p.status, p.header("Access-Control-Allow-Origin")), (204, Some("*")))
    }

  test(anyStyle("CORS in a browser: a page calls an API on another origin when allowed, and is refused otherwise")):
    assume(HeadlessChromium.command.isDefined, HeadlessChromium.Missing)
    val api = endpoint.put
      .in("cors" / "api")
      .in(header[String]("X-Token"))
      .out(stringBody)
      .out(header("X-Total", "7"))
      .serverLogicSuccess[Future](token => Future.successful(s"hello $token"))
    // The page (origin http://127.0.0.1:P, https over TLS) asks two servers at http://localhost:Q with a header that needs a
    // preflight: the first allows the page's origin, the second only another.
    def page(allowed: Int, refused: Int) =
      val script =
        s"""const call = port => fetch('${protocol.scheme}://localhost:' + port + '/cors/api', {method: 'PUT', headers: {'X-Token': 'abc'}})
           |  .then(r => r.text().then(t => 'read ' + t + ' total ' + r.headers.get('X-Total')))
           |  .catch(e => 'blocked');
           |Promise.all([call($allowed), call($refused)]).then(([a, b]) => {
           |  document.getElementById('out').textContent = 'allowed: ' + a + '; refused: ' + b;
           |});""".stripMargin
      s"<!doctype html><html><body><p id=\"out\">waiting</p><script>$script</script></body></html>"
    val pages = java.util.concurrent.ConcurrentHashMap[String, String]()
    val html = endpoint.get
      .in("cors" / "page")
      .out(header("Content-Type", "text/html; charset=UTF-8"))
      .out(byteArrayBody)
      .serverLogicSuccess[Future](_ => Future.successful(pages.get("page").getBytes(StandardCharsets.UTF_8)))
    withServer(html) { pageServer =>
      val origin = s"${protocol.scheme}://127.0.0.1:${pageServer.port}"
      withCors(Cors.allowing(origin).withExposedHeaders("X-Total"))(api) { allowing =>
        withCors(Cors.allowing("http://elsewhere.example"))(api) { refusing =>
          pages.put("page", page(allowing.port, refusing.port))
          // The kit's own authority is not the browser's: over TLS its certificates are let through
          val trust = if protocol.tls == null then Nil else List("--ignore-certificate-errors")
          val dom =
            HeadlessChromium.run(s"$origin/cors/page", ("--dump-dom" :: "--virtual-time-budget=20000" :: trust)*)
          assert(dom.contains("allowed: read hello abc total 7; refused: blocked"), dom)
        }
      }
    }
