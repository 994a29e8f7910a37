package rapier.testkit

import rapier.*
import rapier.server.*

import scala.concurrent.Future

/** Which endpoint gets a request: paths, methods, precedence, rejections. */
trait RoutingTests extends ServerTestSupport:
  private def named(e: Endpoint[Unit, Unit, Unit, Unit], name: String): ServerEndpoint[Future] =
    e.out(stringBody).serverLogicSuccess(_ => Future.successful(name))

  private def capture(e: Endpoint[Unit, String, Unit, Unit], name: String): ServerEndpoint[Future] =
    e.out(stringBody).serverLogicSuccess(v => Future.successful(s"$name:$v"))

  test(anyStyle("an unknown path is a 404, which no browser sniffs for another type")):
    withServer(named(endpoint.get.in("a"), "a")) { t =>
      val r = t.get("/b")
      assertEquals((r.status, r.problem.title), (404, "Not Found"))
      assertEquals(r.header("X-Content-Type-Options"), Some("nosniff"))
    }

  test(anyStyle("a known path with another method is a 405 listing the allowed methods")):
    withServer(
      named(endpoint.get.in("r"), "get"),
      named(endpoint.post.in("r"), "post"),
      named(endpoint.delete.in("x"), "x")
    ) {
      t =>
        val r = t.send("PUT", "/r", "")
        assertEquals(r.status, 405)
        assertEquals(r.header("Allow"), Some("GET, HEAD, POST"))
    }

  test(anyStyle("HEAD is served by the GET endpoint, without a body but with its length")):
    withServer(named(endpoint.get.in("h"), "hello")) { t =>
      val c = t.raw()
      try
        c.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n")
        val r = c.readResponse(head = true)
        assertEquals(r.status, 200)
        assertEquals(r.header("Content-Length"), Some("5"))
        // The connection is still in step: no stray body bytes before the next response.
        c.send("GET /h HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse().body, "hello")
      finally c.close()
    }

  test(anyStyle("an endpoint for HEAD itself takes precedence over GET")):
    withServer(named(endpoint.get.in("h"), "get"), named(endpoint.head.in("h"), "head!")) { t =>
      val c = t.raw()
      try
        c.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse(head = true).header("Content-Length"), Some("5"))
      finally c.close()
    }

  test(anyStyle("a fixed segment wins over a capture, whatever the order of definition")):
    val byId = capture(endpoint.get.in("books" / path[String]("id")), "id")
    val fresh = named(endpoint.get.in("books" / "new"), "new")
    withServer(byId, fresh) { t =>
      assertEquals(t.get("/books/new").body, "new")
      assertEquals(t.get("/books/7").body, "id:7")
    }

  test(anyStyle("routing backs up from a dead end to the next branch")):
    val deep = capture(endpoint.get.in("a" / path[String]("x") / "b"), "deep")
    val rest = endpoint.get.in("a" / paths).out(stringBody).serverLogicSuccess(p =>
      Future.successful(s"rest:${p.mkString("/")}")
    )
    val other = capture(endpoint.get.in("a" / path[String]("y")), "one")
    withServer(deep, rest, other) { t =>
      assertEquals(t.get("/a/1/b").body, "deep:1")
      assertEquals(t.get("/a/1/c").body, "rest:1/c")
      assertEquals(t.get("/a/1").body, "one:1")
      assertEquals(t.get("/a").body, "rest:")
    }

  test(anyStyle("a method mismatch on one branch lets another branch serve")):
    val postFixed = named(endpoint.post.in("m" / "fixed"), "post-fixed")
    val getCapture = capture(endpoint.get.in("m" / path[String]("v")), "get-capture")
    withServer(postFixed, getCapture) { t =>
      assertEquals(t.get("/m/fixed").body, "get-capture:fixed")
      assertEquals(t.post("/m/fixed", "").body, "post-fixed")
      assertEquals(t.send("DELETE", "/m/fixed", "").header("Allow"), Some("GET, HEAD, POST"))
    }

  test(anyStyle("a specific method wins over an endpoint for any method")):
    withServer(named(endpoint.in("any"), "any"), named(endpoint.post.in("any"), "post")) { t =>
      assertEquals(t.post("/any", "").body, "post")
      assertEquals(t.get("/any").body, "any")
      assertEquals(t.send("OPTIONS", "/any", null).body, "any")
    }

  test(anyStyle("each of 128 endpoints gets its own requests")):
    val many = (0 until 128).map(i => named(endpoint.get.in(s"path$i"), s"endpoint $i"))
    withServer(many*) { t =>
      for i <- Seq(0, 1, 63, 64, 126, 127) do assertEquals(t.get(s"/path$i").body, s"endpoint $i")
      assertEquals(t.get("/path128").status, 404)
    }

  test("two endpoints with the same method and path shape refuse to start, naming both"):
    val first = capture(endpoint.get.in("u" / path[String]("id")).name("byId"), "a")
    val second = capture(endpoint.get.in("u" / path[String]("name")).name("byName"), "b")
    val error = intercept[IllegalArgumentException](withServer(first, second)(_ => ()))
    assert(error.getMessage.contains("GET /u/{name} [byName] can never be reached"), error.getMessage)
    assert(error.getMessage.contains("GET /u/{id} [byId] comes first"), error.getMessage)

  test("shadowed endpoints may be allowed to start, and the first one serves"):
    val first = capture(endpoint.get.in("u" / path[String]("id")), "first")
    val second = capture(endpoint.get.in("u" / path[String]("name")), "second")
    val config = TestServerConfig(
      serverOptions = ServerOptions.default.withoutRequestLog.withShadowedEndpoints(ShadowedEndpoints.Warn)
    )
    withServerConfig(config)(first, second) { t => assertEquals(t.get("/u/x").body, "first:x") }

  test("endpoints that can't be served refuse to start with the reason"):
    val restFirst = endpoint.get.in(paths).in("after").out(stringBody).serverLogicSuccess(_ => Future.successful(""))
    val e1 = intercept[IllegalArgumentException](withServer(restFirst)(_ => ()))
    assert(e1.getMessage.contains("must come last"), e1.getMessage)
    val twoMethods = endpoint.get.post.in("x").out(stringBody).serverLogicSuccess(_ => Future.successful(""))
    val e2 = intercept[IllegalArgumentException](withServer(twoMethods)(_ => ()))
    assert(e2.getMessage.contains("several methods"), e2.getMessage)
    val twoBodies = endpoint.post.in(stringBody).in(byteArrayBody).serverLogicSuccess(_ => Future.successful(()))
    val e3 = intercept[IllegalArgumentException](withServer(twoBodies)(_ => ()))
    assert(e3.getMessage.contains("only one body"), e3.getMessage)

  test(anyStyle("an absolute-form request target is routed by its path")):
    withServer(named(endpoint.get.in("abs"), "absolute")) { t =>
      assertEquals(t.rawExchange("GET http://localhost/abs?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n").body, "absolute")
    }

  test(anyStyle("a request target that is not a path is a 400")):
    withServer(named(endpoint.get.in("abs"), "absolute")) { t =>
      // `*` is a target of OPTIONS alone, which asks about the server (see FramingTests)
      assertEquals(t.rawExchange("GET * HTTP/1.1\r\nHost: x\r\n\r\n").status, 400)
    }

  test(anyStyle("query strings don't take part in routing; a fragment is not part of a request target (400)")):
    withServer(named(endpoint.get.in("page"), "page")) { t =>
      assertEquals(t.get("/page?a=/b").body, "page")
      assertEquals(t.rawExchange("GET /page#frag HTTP/1.1\r\nHost: x\r\n\r\n").status, 400)
    }

  test(anyStyle("the endpoint list can mix security, plain and any-method endpoints on one path")):
    val secured = endpoint
      .securityIn(header[String]("X-Key"))
      .get
      .in("mix")
      .out(stringBody)
      .serverSecurityLogic[String, Future](k => Future.successful(Right(k)))
      .serverLogicSuccess((k, _) => Future.successful(s"key $k"))
    withServer(secured, named(endpoint.in("mix"), "any")) { t =>
      assertEquals(t.get("/mix", "X-Key" -> "k1").body, "key k1")
      assertEquals(t.post("/mix", "").body, "any")
    }
