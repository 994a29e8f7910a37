package rapier.openapi

import rapier.server.files.staticFiles

import io.swagger.v3.parser.core.models.ParseOptions

import java.nio.file.Files
import scala.jdk.CollectionConverters.*
import scala.concurrent.Future

class StaticFilesDocTest extends munit.FunSuite:
  test("a static file service is documented: its path, the answers of its conditions and its problems"):
    val dir = Files.createTempDirectory("rapier-static-doc-")
    try
      val files = staticFiles[Future]("assets", dir)
      val yaml = OpenApiInterpreter().toOpenApi(List(files.endpoint), Info("Files", "1.0")).toYaml
      for expected <- List(
          "/assets/{paths}:",
          "\"200\":",
          "\"301\":",
          "\"304\":",
          "\"404\":",
          "\"412\":",
          "ETag:",
          "Last-Modified:",
          "format: binary"
        )
      do assert(yaml.contains(expected), s"$expected in\n$yaml")
      val notFound = yaml.substring(yaml.indexOf("\"404\":"))
      assert(
        notFound.startsWith(
          "\"404\":\n          description: No file at this path\n          content:\n" +
            "            application/problem+json:\n              schema:\n                $ref: \"#/components/schemas/Problem\""
        ),
        notFound
      )
      val parsed = io.swagger.parser.OpenAPIParser().readContents(yaml, null, ParseOptions())
      assertEquals(Option(parsed.getMessages).map(_.asScala.toList).getOrElse(Nil), Nil)
    finally Files.delete(dir)
