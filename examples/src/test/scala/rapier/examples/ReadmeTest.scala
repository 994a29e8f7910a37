package rapier.examples

import rapier.testkit.{StubRequest, StubServer}

import java.nio.file.{Files, Path}

/** The README's code is this module's example code, word for word, and does what the README says. */
class ReadmeTest extends munit.FunSuite:
  /** The lines between `// start:NAME` and `// end:NAME` in an example file, their common indentation removed. */
  def region(file: String, name: String): String =
    val source = Files.readString(Path.of(s"src/main/scala/rapier/examples/$file"))
    val lines = source.linesIterator.toList
    val from = lines.indexWhere(_.trim == s"// start:$name")
    val to = lines.indexWhere(_.trim == s"// end:$name")
    assert(from >= 0 && to > from, s"no region $name in $file")
    val body = lines.slice(from + 1, to)
    val indent = body.filter(_.trim.nonEmpty).map(_.takeWhile(_ == ' ').length).min
    body.map(_.drop(indent)).mkString("", "\n", "\n")

  /** The first `scala` code block after a heading of the README. */
  def firstScalaBlockUnder(heading: String): String =
    val readme = Files.readString(Path.of("../README.md"))
    s"""(?s)${java.util.regex.Pattern.quote(heading)}\n.*?```scala\n(.*?)```""".r
      .findFirstMatchIn(readme)
      .map(_.group(1))
      .getOrElse("")

  test("the README shows the example file as it is"):
    val readme = Files.readString(Path.of("../README.md"))
    val block = """(?s)## An example\n\n```scala\n(.*?)```""".r.findFirstMatchIn(readme).map(_.group(1)).getOrElse("")
    val source = Files.readString(Path.of("src/main/scala/rapier/examples/readme/ReadmeExample.scala"))
    assertEquals(source, s"package rapier.examples.readme\n\n$block")

  test("the README shows the books API's rules, endpoints and security logic as they are in the example"):
    val block = firstScalaBlockUnder("## A JSON API, with validation and authentication")
    val expected = List(
      region("Books.scala", "rules"),
      region("Books.scala", "endpoints"),
      region("BooksServer.scala", "security")
    ).mkString("\n")
    assertEquals(block, expected)

  test("the README shows the books API's documentation as the example serves it"):
    assertEquals(firstScalaBlockUnder("## Documentation: OpenAPI and Swagger UI"), region("BooksServer.scala", "docs"))

  test("the README shows the four styles as they are in the example"):
    assertEquals(firstScalaBlockUnder("## One endpoint, four styles"), region("Styles.scala", "styles"))
    assertEquals(firstScalaBlockUnder("### ZIO logic that needs a service"), region("Styles.scala", "zio-environment"))

  test("the README shows the WebSocket as it is in the example"):
    assertEquals(firstScalaBlockUnder("## WebSockets"), region("WebSockets.scala", "shout"))

  test("the README shows the Vert.x mount as it is in the example"):
    val block = firstScalaBlockUnder("## On Vert.x, beside an application's own routes")
    assertEquals(block, region("VertxRouterApp.scala", "mount"))

  test("the README shows CORS as it is in the example"):
    assertEquals(firstScalaBlockUnder("## Cross-origin requests (CORS)"), region("Production.scala", "cors"))

  test("the README shows metrics as they are in the example"):
    assertEquals(firstScalaBlockUnder("## Metrics (Prometheus)"), region("Production.scala", "metrics"))

  test("the README shows compression as it is in the example"):
    assertEquals(firstScalaBlockUnder("## Compression"), region("Production.scala", "compression"))

  test("the README shows HTTPS as it is in the example"):
    assertEquals(firstScalaBlockUnder("## HTTPS"), region("Production.scala", "tls"))

  test("the README shows HTTP/2 as it is in the example"):
    assertEquals(firstScalaBlockUnder("## HTTP/2"), region("Production.scala", "http2"))

  test("the README shows static files as they are in the example"):
    assertEquals(firstScalaBlockUnder("## Static files and resources"), region("Production.scala", "static"))

  test("the README shows OpenTelemetry as it is in the example"):
    assertEquals(
      firstScalaBlockUnder("## Tracing and metrics (OpenTelemetry)"),
      region("Production.scala", "opentelemetry")
    )

  test("the README example answers as the README says"):
    val stub = StubServer(List(readme.served))
    assertEquals(stub.sendAndWait(StubRequest.get("/books/1?lang=fr")).bodyText, "Dune (fr)")
    val missing = stub.sendAndWait(StubRequest.get("/books/2"))
    assertEquals((missing.status, missing.bodyText), (404, "no book 2"))
    val bad = stub.sendAndWait(StubRequest.get("/books/x"))
    assertEquals(bad.status, 400)
    assert(bad.bodyText.contains("path parameter 'id'") && !bad.bodyText.contains("x'"), bad.bodyText)
    val wrongMethod = stub.sendAndWait(StubRequest.post("/books/1", ""))
    assertEquals((wrongMethod.status, wrongMethod.header("Allow")), (405, Some("GET, HEAD")))

  test("the guide's client page shows the client as it is in the example"):
    val page = Files.readString(Path.of("../docs/client.md"))
    val block = """(?s)```scala\n(.*?)```""".r.findFirstMatchIn(page).map(_.group(1)).getOrElse("")
    assertEquals(block, region("Clients.scala", "client"))
