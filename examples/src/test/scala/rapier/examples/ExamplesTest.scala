package rapier.examples

import rapier.netty.NettyServer
import rapier.testkit.*

/** Each example, served for real and exercised the way its documentation says. */
class ExamplesTest extends munit.FunSuite:
  LeakDetection.install()

  private def serving[T](endpoints: List[rapier.server.ServerEndpoint[scala.concurrent.Future]])(f: TestClient => T)
      : T =
    val binding = NettyServer(endpoints).withPort(0).start()
    try f(TestClient(binding.port))
    finally binding.stop()

  private val json = "Content-Type" -> "application/json"
  private val librarian = "Authorization" -> s"Bearer ${BooksServer.defaultToken}"

  test("one endpoint in four styles answers the same in each"):
    given cats.effect.unsafe.IORuntime = cats.effect.unsafe.IORuntime.global
    val future = Styles.withFuture(0)
    try assertEquals(TestClient(future.port).get("/greet/you").body, "Hello, you")
    finally future.stop()
    val viaIO = Styles.withIO(0).use(b => cats.effect.IO(TestClient(b.port).get("/greet/you").body))
    assertEquals(viaIO.unsafeRunSync(), "Hello, you")
    val viaZio = zio.ZIO.scoped(Styles.withZio(0).map(b => TestClient(b.port).get("/greet/you").body))
    assertEquals(zio.Unsafe.unsafely(zio.Runtime.default.unsafe.run(viaZio).getOrThrow()), "Hello, you")
    val needing = zio.ZIO
      .scoped(Styles.needingGreetings(0).map(b => TestClient(b.port).get("/greet/you").body))
      .provide(Styles.Greetings.live)
    assertEquals(zio.Unsafe.unsafely(zio.Runtime.default.unsafe.run(needing).getOrThrow()), "Hello, you")
    if rapier.server.spi.VirtualThreadRunner.available then
      val direct = Styles.direct(0)
      try assertEquals(TestClient(direct.port).get("/greet/you").body, "Hello, you")
      finally direct.stop()
    else
      val refused = intercept[UnsupportedOperationException](Styles.direct(0))
      assert(refused.getMessage.contains("JDK 21"), refused.getMessage)

  test("the WebSocket answers in capitals, to the JDK's own WebSocket client"):
    val binding = WebSockets.server(0)
    val answers = java.util.concurrent.LinkedBlockingQueue[String]()
    val listener = new java.net.http.WebSocket.Listener:
      override def onText(ws: java.net.http.WebSocket, data: CharSequence, last: Boolean) =
        answers.add(data.toString)
        ws.request(1)
        null
    try
      val ws = java.net.http.HttpClient
        .newHttpClient()
        .newWebSocketBuilder()
        .buildAsync(java.net.URI.create(s"ws://localhost:${binding.port}/shout"), listener)
        .get(10, java.util.concurrent.TimeUnit.SECONDS)
      ws.sendText("hello", true).get(10, java.util.concurrent.TimeUnit.SECONDS)
      ws.sendText("again", true).get(10, java.util.concurrent.TimeUnit.SECONDS)
      assertEquals(answers.poll(10, java.util.concurrent.TimeUnit.SECONDS), "HELLO")
      assertEquals(answers.poll(10, java.util.concurrent.TimeUnit.SECONDS), "AGAIN")
      ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "done").get(10, java.util.concurrent.TimeUnit.SECONDS)
    finally binding.stop()

  test("the README's endpoint called through the client: output, typed error"):
    val binding = NettyServer(List(readme.served)).withPort(0).start()
    try
      val base = s"http://localhost:${binding.port}"
      val got = scala.concurrent.Await.result(
        Clients.books(base)((1L, Some("fr"))),
        scala.concurrent.duration.Duration(10, "s")
      )
      assertEquals(got, Right("Dune (fr)"))
      assertEquals(Clients.bookNow(base, 2), Left(readme.NotFound("no book 2")))
    finally binding.stop()

  test("hello world greets"):
    serving(List(HelloWorld.helloServer)) { c =>
      assertEquals(c.get("/hello?name=you").body, "Hello, you!")
      assertEquals(c.get("/hello").body, "Hello, world!")
    }

  test("books: list, find, add, remove"):
    serving(BooksServer().endpoints) { c =>
      assertEquals(c.get("/books?limit=1").body, """[{"id":1,"title":"Dune","author":"Frank Herbert","year":1965}]""")
      assertEquals(c.get("/books").header("Content-Type"), Some("application/json"))
      assertEquals(
        c.get("/books/2").body,
        """{"id":2,"title":"The Left Hand of Darkness","author":"Ursula K. Le Guin","year":1969}"""
      )

      val added =
        c.send("POST", "/books", """{"title":"Kindred","author":"Octavia E. Butler","year":1979}""", json, librarian)
      assertEquals(added.status, 201)
      assertEquals(added.header("Location"), Some("/books/3"))
      assertEquals(added.body, """{"id":3,"title":"Kindred","author":"Octavia E. Butler","year":1979}""")
      assertEquals(c.get("/books/3").status, 200)

      assertEquals(c.send("DELETE", "/books/3", null, librarian).status, 204)
      assertEquals(c.get("/books/3").status, 404)
    }

  test("books: errors are typed and carry their status codes"):
    serving(BooksServer().endpoints) { c =>
      val missing = c.get("/books/99")
      assertEquals((missing.status, missing.body), (404, """{"message":"There is no book 99"}"""))
      val duplicate =
        c.send("POST", "/books", """{"title":"Dune","author":"Frank Herbert","year":1965}""", json, librarian)
      assertEquals(
        (duplicate.status, duplicate.body),
        (409, """{"message":"'Dune' by Frank Herbert is already on the shelf"}""")
      )
      assertEquals(c.send("DELETE", "/books/1", null, librarian).status, 409)
      assertEquals(c.send("DELETE", "/books/42", null, librarian).status, 404)
    }

  test("books: changes need the librarian's bearer token"):
    serving(BooksServer().endpoints) { c =>
      val book = """{"title":"Kindred","author":"Octavia E. Butler","year":1979}"""
      val none = c.send("POST", "/books", book, json)
      assertEquals(none.status, 401)
      assertEquals(none.header("WWW-Authenticate"), Some("Bearer realm=\"books\""))
      val wrong = c.send("POST", "/books", book, json, "Authorization" -> "Bearer guess")
      assertEquals((wrong.status, wrong.body), (401, """{"message":"That token does not open the shelf"}"""))
      assertEquals(wrong.header("WWW-Authenticate"), Some("Bearer realm=\"books\""))
      assertEquals(c.send("DELETE", "/books/2", null).status, 401)
      assertEquals(c.get("/books").body.count(_ == '{'), 2)
    }

  test("books: bad input is refused with a precise 4xx listing every problem"):
    serving(BooksServer().endpoints) { c =>
      assertEquals(c.get("/books/0").status, 400)
      assertEquals(c.get("/books/abc").status, 400)
      assertEquals(c.get("/books?limit=0").status, 400)
      val invalid = c.send("POST", "/books", """{"title":"","author":"","year":3000}""", json, librarian)
      assertEquals(invalid.status, 400)
      assertEquals(invalid.header("Content-Type"), Some("application/problem+json"))
      assertEquals(invalid.problem.locations, List("body.title", "body.author", "body.year"))
      val malformed = c.send("POST", "/books", """{"title":"T",""", json, librarian)
      assertEquals(malformed.problem.errors.map(_.rule), List("syntax"))
      val wrongType = c.send("POST", "/books", """{"title":1,"author":"A","year":2000}""", json, librarian)
      val error = wrongType.problem.errors.head // as the README says
      assertEquals(error.location, "body.title")
      assertEquals(error.message, "the body is malformed in title: expected '\"' at byte 9")
      assertEquals(c.send("POST", "/books", "title=T", "Content-Type" -> "text/plain", librarian).status, 415)
      assertEquals(c.send("PUT", "/books/1", "").status, 405)
    }

  test("a Vert.x application with the books API mounted on its router: both sides serve, bodies intact"):
    val vertx = io.vertx.core.Vertx.vertx()
    try
      val c = TestClient(VertxRouterApp.start(vertx, 0).actualPort)
      assertEquals(c.get("/status").body, "up")
      assertEquals(c.get("/books/1").body, """{"id":1,"title":"Dune","author":"Frank Herbert","year":1965}""")
      val added =
        c.send("POST", "/books", """{"title":"Kindred","author":"Octavia E. Butler","year":1979}""", json, librarian)
      assertEquals((added.status, added.header("Location")), (201, Some("/books/3")))
      assertEquals(c.send("POST", "/books", "{}", json).status, 401)
      assertEquals(c.get("/books/abc").header("Content-Type"), Some("application/problem+json"))
      val feedback = c.post("/feedback", "more books by Le Guin")
      assertEquals((feedback.status, feedback.body), (202, "thanks for 21 bytes"))
      assertEquals(c.get("/elsewhere").status, 404)
    finally vertx.close().toCompletionStage.toCompletableFuture.get(30, java.util.concurrent.TimeUnit.SECONDS)

  test("books: its documentation, and Swagger UI to read it, at /docs"):
    serving(BooksServer().endpointsWithDocs) { c =>
      assertEquals(c.get("/docs").header("Location"), Some("docs/index.html"))
      assert(c.get("/docs/index.html").body.contains("swagger-ui-bundle.js"))
      val yaml = c.get("/docs/openapi.yaml").body
      for line <- List("openapi: 3.1.0", "/books/{id}:", "operationId: addBook", "bearerAuth:", "NewBook:") do
        assert(yaml.contains(line), s"$line in\n$yaml")
      assertEquals(c.get("/books/1").status, 200)
      val options = io.swagger.v3.parser.core.models.ParseOptions()
      options.setResolve(true)
      val parsed = io.swagger.parser.OpenAPIParser().readContents(yaml, null, options)
      assert(parsed.getOpenAPI != null && parsed.getMessages.isEmpty, parsed.getMessages)
    }

  override def afterAll(): Unit =
    val leaks = LeakDetection.leaksSoFar()
    assert(leaks.isEmpty, leaks.mkString("\n"))

  test("the books API with its front end: the app's files, its routes, the API beside them"):
    val app = java.nio.file.Files.createTempDirectory("rapier-front-end-")
    java.nio.file.Files.writeString(app.resolve("index.html"), "<title>Books</title>")
    val metrics = rapier.metrics.prometheus.PrometheusMetrics(io.prometheus.metrics.model.registry.PrometheusRegistry())
    val binding = Production.withFrontEnd(app)(Production.server(BooksServer(), metrics)).withPort(0).start()
    try
      val client = TestClient(binding.port)
      val home = client.get("/")
      assertEquals((home.status, home.body), (200, "<title>Books</title>"))
      assertEquals(home.header("Cache-Control"), Some("no-cache"))
      assertEquals(client.get("/", "If-None-Match" -> home.header("ETag").get).status, 304)
      assertEquals(client.get("/books/42/edit").body, "<title>Books</title>")
      assert(client.get("/books").body.startsWith("["), "the API answers beside the app")
    finally
      binding.stop()
      java.nio.file.Files.walk(app).sorted(java.util.Comparator.reverseOrder()).forEach(java.nio.file.Files.delete)

  private def production = Production.server(
    BooksServer(),
    rapier.metrics.prometheus.PrometheusMetrics(io.prometheus.metrics.model.registry.PrometheusRegistry())
  )

  test("the books API over HTTPS and HTTP/2: served with the certificate given, to curl too, nothing in plain HTTP"):
    import rapier.testkit.TlsTests.Keys
    val server =
      Production.withHttp2(Production.withHttps(Keys.file("server-chain.crt"), Keys.file("server.key"))(production))
    val binding = server.withPort(0).start()
    try
      val client = java.net.http.HttpClient.newBuilder().sslContext(Keys.clientContext(withCertificate = false)).build()
      val books = client.send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(s"https://localhost:${binding.port}/books")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()
      )
      assertEquals((books.statusCode, books.version), (200, java.net.http.HttpClient.Version.HTTP_2))
      assert(books.body.startsWith("["), books.body)
      assert(scala.util.Try(TestClient(binding.port).get("/books")).isFailure, "plain HTTP gets no answer")
      // As a newcomer tries it: curl, the self-signed certificate accepted with -k
      val (version, body) = Http2Tests.curlVersion("-sk", "--http2", s"https://localhost:${binding.port}/books")
      assertEquals(version, "2")
      assert(body.startsWith("["), body)
    finally binding.stop()

  test("the books API on Vert.x over HTTPS and HTTP/2: h2 by ALPN for curl, HTTP/1.1 beside it"):
    import rapier.testkit.TlsTests.Keys
    val binding = rapier.vertx
      .VertxServer()
      .addEndpoints(BooksServer().endpoints)
      .withTls(rapier.server.Tls.pem(Keys.file("server-chain.crt"), Keys.file("server.key")))
      .withHttp2(rapier.server.Http2(maxConcurrentStreams = 100))
      .withPort(0)
      .start()
    try
      for (flag, expected) <- List("--http2" -> "2", "--http1.1" -> "1.1") do
        val (version, body) = Http2Tests.curlVersion("-sk", flag, s"https://localhost:${binding.port}/books")
        assertEquals(version, expected, flag)
        assert(body.startsWith("["), s"$flag: $body")
    finally binding.stop()

  test("the books API over h2c: curl --http2 upgrades to it, --http2-prior-knowledge speaks it at once"):
    val binding = Production.withHttp2(production).withPort(0).start()
    try
      for flag <- List("--http2", "--http2-prior-knowledge") do
        val (version, body) = Http2Tests.curlVersion("-s", flag, s"http://localhost:${binding.port}/books")
        assertEquals(version, "2", flag)
        assert(body.startsWith("["), s"$flag: $body")
    finally binding.stop()

  test("the books API traced: a span per request, named by its route, in the caller's trace"):
    val exporter = io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter.create()
    val tracer = io.opentelemetry.sdk.trace.SdkTracerProvider
      .builder()
      .addSpanProcessor(io.opentelemetry.sdk.trace.`export`.SimpleSpanProcessor.create(exporter))
      .build()
    val sdk = io.opentelemetry.sdk.OpenTelemetrySdk
      .builder()
      .setTracerProvider(tracer)
      .setPropagators(
        io.opentelemetry.context.propagation.ContextPropagators.create(
          io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator.getInstance()
        )
      )
      .build()
    val metrics = rapier.metrics.prometheus.PrometheusMetrics(io.prometheus.metrics.model.registry.PrometheusRegistry())
    val binding = Production.withOpenTelemetry(sdk)(Production.server(BooksServer(), metrics)).withPort(0).start()
    try
      val traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      val client = TestClient(binding.port)
      assertEquals(client.get("/books", "traceparent" -> s"00-$traceId-00f067aa0ba902b7-01").status, 200)
      val spans = exporter.getFinishedSpanItems
      assertEquals(spans.size, 1)
      assertEquals((spans.get(0).getName, spans.get(0).getTraceId), ("GET /books", traceId))
    finally
      binding.stop()
      sdk.close()

  test("the books API in production: preflights answered, answers compressed, requests counted"):
    val metrics = rapier.metrics.prometheus.PrometheusMetrics(io.prometheus.metrics.model.registry.PrometheusRegistry())
    val binding = Production.server(BooksServer(), metrics).withPort(0).start()
    try
      val client = TestClient(binding.port)
      val front = "Origin" -> "https://books.example.com"
      val asked = client.send(
        "OPTIONS",
        "/books",
        null,
        front,
        "Access-Control-Request-Method" -> "POST",
        "Access-Control-Request-Headers" -> "authorization, content-type"
      )
      assertEquals(
        (asked.status, asked.header("Access-Control-Allow-Origin")),
        (204, Some("https://books.example.com"))
      )
      assertEquals(asked.header("Access-Control-Allow-Credentials"), Some("true"))
      assertEquals(asked.header("Access-Control-Max-Age"), Some("600"))
      val list = client.get("/books", front)
      assertEquals((list.status, list.header("Access-Control-Allow-Origin")), (200, Some("https://books.example.com")))
      assertEquals(
        client.get("/books", "Origin" -> "https://other.example").header("Access-Control-Allow-Origin"),
        None
      )
    finally binding.stop()

  test("circe: a note read and written by circe, a wrong one located without its value"):
    serving(List(CirceJson.addNote)) { c =>
      val added = c.send("POST", "/notes", """{"title":"t","tags":["a","a","b"]}""", json)
      assertEquals((added.status, added.body), (200, """{"title":"t","tags":["a","b"]}"""))
      val wrong = c.send("POST", "/notes", """{"title":"t","tags":["a",{"k":"SECRET"}]}""", json)
      assertEquals(wrong.status, 400)
      assertEquals(wrong.problem.errors.map(_.location), List("body.tags[1]"))
      assert(!wrong.body.contains("SECRET"), wrong.body)
    }
