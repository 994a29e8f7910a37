package rapier.swaggerui

import rapier.*
import rapier.model.StatusCode
import rapier.netty.NettyServer
import rapier.openapi.{OpenApi, OpenApiInterpreter}
import rapier.server.{ServerEndpoint, serverLogic, serverLogicSuccess}
import rapier.testkit.{HeadlessChromium, TestClient}

import scala.concurrent.Future

class SwaggerUiTest extends munit.FunSuite:
  private val books = List(
    endpoint.get.in("books").in(query[Option[Int]]("limit")).out(stringBody).name("listBooks")
      .serverLogicSuccess[Future](_ => Future.successful("[]")),
    endpoint.get.in(
      "books" / path[Long]("id")
    ).out(stringBody).errorOut(statusCode(StatusCode.NotFound)).name("getBook")
      .serverLogic[Future](id => Future.successful(Right(s"book $id"))),
    endpoint.post.in("books").in(stringBody).out(stringBody).name("addBook")
      .serverLogicSuccess[Future](b => Future.successful(b))
  )
  private val document: OpenApi = OpenApiInterpreter().toOpenApi(books.map(_.endpoint), "Books <&>", "1.0")

  private def serving[A](docs: List[ServerEndpoint[Future]])(f: Int => A): A =
    val binding = NettyServer(books ++ docs).withHost("127.0.0.1").withPort(0).start()
    try f(binding.port)
    finally binding.stop()

  test("/docs redirects to the page, which the document and Swagger UI's files are served beside") {
    serving(SwaggerUi[Future](document)) { port =>
      val client = TestClient(port)
      val redirect = client.get("/docs")
      assertEquals(redirect.status, 302)
      assertEquals(redirect.header("Location"), Some("docs/index.html"))
      val page = client.get("/docs/index.html")
      assertEquals(page.status, 200)
      assertEquals(page.header("Content-Type"), Some("text/html; charset=UTF-8"))
      assertEquals(page.header("X-Content-Type-Options"), Some("nosniff"))
      assert(page.body.contains("<title>Books &lt;&amp;&gt;</title>"), page.body)
      assert(page.body.contains("url: \"./openapi.yaml\""), page.body)
      val yaml = client.get("/docs/openapi.yaml")
      assertEquals(yaml.header("Content-Type"), Some("application/yaml"))
      assertEquals(yaml.body, document.toYaml)
      assertEquals(client.get("/docs/openapi.json").body, document.toJson)
      val bundle = client.get("/docs/swagger-ui-bundle.js")
      assertEquals(bundle.header("Content-Type"), Some("text/javascript; charset=UTF-8"))
      val jar = getClass.getClassLoader.getResourceAsStream(
        s"META-INF/resources/webjars/swagger-ui/${WebjarVersion.value}/swagger-ui-bundle.js"
      )
      assert(java.util.Arrays.equals(bundle.bytes, jar.readAllBytes()), "the webjar's bytes, unchanged")
      assertEquals(client.get("/docs/favicon-32x32.png").header("Content-Type"), Some("image/png"))
      val missing = client.get("/docs/swagger-initializer.js")
      assertEquals(missing.status, 404)
      assertEquals(missing.header("X-Content-Type-Options"), Some("nosniff"))
      // A capture never holds a slash: a name that tries to leave the directory is refused.
      assertEquals(client.get("/docs/..%2Fbuild.sbt").status, 400)
      // The application's own endpoints are untouched.
      assertEquals(client.get("/books/7").body, "book 7")
    }
  }

  test("under a prefix of several segments") {
    serving(SwaggerUi[Future](document, SwaggerUiOptions().withPrefix("api", "v1", "docs"))) { port =>
      val client = TestClient(port)
      assertEquals(client.get("/api/v1/docs").header("Location"), Some("docs/index.html"))
      assertEquals(client.get("/api/v1/docs/index.html").status, 200)
      assertEquals(client.get("/api/v1/docs/openapi.yaml").body, document.toYaml)
      assertEquals(client.get("/docs/index.html").status, 404)
    }
  }

  test("on Vert.x, the same endpoints serve the same files") {
    val binding = rapier.vertx.VertxServer(books ++ SwaggerUi[Future](document))
      .modifyOptions(_.withHost("127.0.0.1").withPort(0))
      .start()
    try
      val client = TestClient(binding.port)
      assertEquals(client.get("/docs").header("Location"), Some("docs/index.html"))
      assertEquals(client.get("/docs/openapi.yaml").body, document.toYaml)
      assertEquals(client.get("/docs/swagger-ui.css").header("Content-Type"), Some("text/css; charset=UTF-8"))
    finally binding.stop()
  }

  test("options that can't name a place are refused") {
    intercept[IllegalArgumentException](SwaggerUiOptions(prefix = Nil))
    intercept[IllegalArgumentException](SwaggerUiOptions(prefix = List("a/b")))
    intercept[IllegalArgumentException](SwaggerUiOptions(yamlName = "x/openapi.yaml"))
  }

  test("in headless Chromium, Swagger UI lists every operation") {
    assume(HeadlessChromium.command.isDefined, HeadlessChromium.Missing)
    serving(SwaggerUi[Future](document)) { port =>
      // Chromium follows the redirect, then waits (in virtual time) for the scripts and the document to load.
      val dom = HeadlessChromium.run(s"http://127.0.0.1:$port/docs", "--dump-dom", "--virtual-time-budget=30000")
      assert(dom.contains("id=\"swagger-ui\""), dom.take(2000))
      for path <- List("/books", "/books/{id}") do assert(dom.contains(s"data-path=\"$path\""), s"$path in the DOM")
      assertEquals("opblock-summary-method".r.findAllIn(dom).size, 3, "three operations")
      assert(dom.contains("Books &lt;&amp;&gt;"), "the title")
    }
  }
