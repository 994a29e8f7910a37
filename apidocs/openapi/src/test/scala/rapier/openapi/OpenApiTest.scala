package rapier.openapi

import io.swagger.parser.OpenAPIParser
import io.swagger.v3.parser.core.models.ParseOptions
import rapier.*
import rapier.json.jsoniter.jsonBody

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

object OpenApiTest:
  /** An application's type of the name the server's problem details would take. */
  final case class Problem(code: Int)
  given com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec[Option[Problem]] =
    com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker.make

class OpenApiTest extends munit.FunSuite:
  import RichApi.given

  private val document = OpenApiInterpreter().toOpenApi(RichApi.all, Info("Books", "1.0", description = Some("A test")))

  private def parse(text: String) =
    val options = ParseOptions()
    options.setResolve(true)
    OpenAPIParser().readContents(text, null, options)

  /** Every message swagger-parser has about a document, errors and warnings alike. */
  private def problems(text: String): List[String] =
    val result = parse(text)
    assert(result.getOpenAPI != null, s"not parsed: ${result.getMessages}")
    Option(result.getMessages).map(_.asScala.toList).getOrElse(Nil)

  private def golden(name: String, actual: String): Unit =
    // Tests run in the module's directory.
    val path = Path.of("src/test/resources/golden", name)
    if sys.env.contains("RAPIER_UPDATE_GOLDEN") then
      Files.createDirectories(path.getParent)
      Files.writeString(path, actual, StandardCharsets.UTF_8)
    val expected = Files.readString(path, StandardCharsets.UTF_8)
    assertNoDiff(actual, expected, s"$name differs from the golden file; RAPIER_UPDATE_GOLDEN=1 rewrites it")

  test("the rich API's YAML is the golden one") {
    golden("rich.yaml", document.toYaml)
  }

  test("the rich API's JSON is the golden one") {
    golden("rich.json", document.toJson)
  }

  test("swagger-parser finds no error and no warning in the YAML") {
    assertEquals(problems(document.toYaml), Nil)
  }

  test("swagger-parser finds no error and no warning in the JSON") {
    assertEquals(problems(document.toJson), Nil)
  }

  test("the YAML and the JSON say the same, strings that look like numbers included") {
    val yaml = parse(document.toYaml).getOpenAPI
    assertEquals(yaml, parse(document.toJson).getOpenAPI)
    assertEquals(yaml.getInfo.getVersion, "1.0")
    assertEquals(yaml.getOpenapi, "3.1.0")
  }

  test("the validator does find what is wrong in a document") {
    val yaml = document.toYaml
    val noVersion = yaml.replace("  version: \"1.0\"\n", "")
    assert(noVersion != yaml)
    assert(problems(noVersion).exists(_.contains("info.version")), problems(noVersion))
    val stray = yaml.replace("      operationId: listBooks\n", "      operationId: listBooks\n      stray: 1\n")
    assert(stray != yaml)
    assert(problems(stray).exists(_.contains("stray")), problems(stray))
    val dangling = document.copy(components = document.components.copy(schemas = document.components.schemas - "Book"))
    assert(problems(dangling.toYaml).exists(_.contains("Book")), problems(dangling.toYaml))
  }

  test("the same endpoints give the same bytes, whoever documents them and in whichever order the types are met") {
    val again = OpenApiInterpreter().toOpenApi(RichApi.all, Info("Books", "1.0", description = Some("A test")))
    assertEquals(again.toYaml, document.toYaml)
    assertEquals(again.toJson, document.toJson)
    val reversed = OpenApiInterpreter().toOpenApi(RichApi.all.reverse, Info("Books", "1.0"))
    assertEquals(reversed.components.schemas.keySet, document.components.schemas.keySet)
    assertEquals(reversed.components.schemas, document.components.schemas)
  }

  test("two variants on one status code are one response whose body is oneOf both") {
    val conflict = document.paths("/books").operations("post").responses("409")
    assertEquals(conflict.description, "The book exists; The catalogue changed meanwhile")
    val schema = conflict.content("application/json").schema
    assertEquals(schema.oneOf.flatMap(_.ref), List("#/components/schemas/Duplicate", "#/components/schemas/Stale"))
    assertEquals(
      document.paths("/books").operations("post").responses.keys.toList,
      List("201", "400", "401", "408", "409", "413", "415", "500", "503")
    )
  }

  test("the server's own 400 and 401 sit beside the endpoint's under the same status code") {
    val responses = document.paths("/books").operations("post").responses
    assertEquals(responses("400").content.keys.toList, List("application/json", "application/problem+json"))
    assertEquals(responses("400").description, "The book is not valid; The request's inputs are invalid")
    assertEquals(responses("401").content.keys.toList, List("application/problem+json"))
  }

  test("an output whose status code the logic chooses is the default response") {
    assertEquals(document.paths("/login").operations("post").responses.keys.toList, List("400", "500", "default"))
  }

  test("types of one simple name in two packages get their full names; generic types their arguments") {
    val names = document.components.schemas.keySet
    assert(names.contains("rapier.openapi.a.Item"), names)
    assert(names.contains("rapier.openapi.b.Item"), names)
    assert(!names.contains("Item"), names)
    assert(names.contains("Page_Book") && names.contains("Page_Author"), names)
  }

  test("a recursive type refers to itself; a sealed trait with a discriminator maps each alternative") {
    val category = document.components.schemas("Category")
    assertEquals(category.properties("children").items.flatMap(_.ref), Some("#/components/schemas/Category"))
    val shape = document.components.schemas("Shape")
    assertEquals(shape.discriminator.map(_.propertyName), Some("type"))
    assertEquals(shape.discriminator.get.mapping.keys.toList, List("Circle", "Rectangle", "Group"))
    val group = document.components.schemas("Group")
    assertEquals(group.required, List("type", "members"))
    assertEquals(group.properties("members").items.flatMap(_.ref), Some("#/components/schemas/Shape"))
  }

  test("validators become constraints; optional inputs are not required") {
    val parameters = document.paths("/books").operations("get").parameters.map(p => p.name -> p).toMap
    assertEquals(parameters("limit").schema.minimum, Some(BigDecimal(1)))
    assertEquals(parameters("limit").schema.maximum, Some(BigDecimal(100)))
    assert(parameters("limit").required)
    assert(!parameters("offset").required)
    assertEquals(parameters("offset").schema.minimum, Some(BigDecimal(0)))
    assertEquals(parameters("word").schema.items.flatMap(_.minLength), Some(2))
    assert(!parameters("genre").required)
    assert(parameters("q").deprecated)
    val book = document.components.schemas("Book")
    assertEquals(book.properties("title").maxLength, Some(200))
    assertEquals(book.properties("title").minLength, Some(1))
    assertEquals(book.properties("tags").maxItems, Some(10))
    assertEquals(book.properties("id").exclusiveMinimum, Some(BigDecimal(0)))
    assert(!book.required.contains("published"), book.required)
    val sku = document.paths("/items/{sku}").operations("get").parameters.head
    assertEquals(sku.schema.pattern, Some("[A-Z]{3}-[0-9]+"))
  }

  test("security: schemes as components, one requirement per alternative, a 401 with its challenge") {
    assertEquals(
      document.components.securitySchemes.keys.toList,
      List("apiKeyHeader_X-API-Key", "basicAuth", "bearerAuth")
    )
    val delete = document.paths("/books/{id}").operations("delete")
    assertEquals(delete.security.map(_.keys.toList), List(List("basicAuth"), List("bearerAuth")))
    assert(delete.deprecated)
    assert(delete.responses("401").headers.contains("WWW-Authenticate"))
  }

  test("operation ids are the endpoints' names, made unique in order; others come from method and path") {
    val ids = document.paths.values.flatMap(_.operations.values).map(_.operationId).toList
    assertEquals(ids.distinct, ids)
    assertEquals(document.paths("/ping/again").operations("get").operationId, "ping_2")
    assertEquals(document.paths("/shapes").operations("post").operationId, "postShapes")
    // A name that is another's suffixed form is taken into account too.
    val named = List("a", "a_2", "a").zipWithIndex.map((n, i) => endpoint.get.in(s"p$i").out(stringBody).name(n))
    val doc = OpenApiInterpreter().toOpenApi(named, "x", "1")
    assertEquals(doc.paths.values.flatMap(_.operations.values).map(_.operationId).toList, List("a", "a_2", "a_3"))
  }

  test("an endpoint of no inputs that can fail has no 400 of the server's") {
    val categories = document.paths("/categories").operations("get")
    assertEquals(categories.responses.keys.toList, List("200", "500"))
  }

  test("an application's type named Problem keeps its name; the server's problem details take another") {
    import OpenApiTest.given
    val e = endpoint.post.in("p").in(query[Int]("n")).in(jsonBody[Option[OpenApiTest.Problem]]).out(stringBody)
    val doc = OpenApiInterpreter().toOpenApi(List(e), "x", "1")
    assertEquals(doc.components.schemas.keys.toList, List("Problem", "RapierProblem"))
    assertEquals(doc.components.schemas("Problem").properties.keys.toList, List("code"))
    val operation = doc.paths("/p").operations("post")
    assertEquals(
      operation.responses("400").content("application/problem+json").schema.ref,
      Some("#/components/schemas/RapierProblem")
    )
    // An optional body: not required, and null where the value is absent.
    val body = operation.requestBody.get
    assert(!body.required)
    assertEquals(
      body.content("application/json").schema.oneOf.map(s => s.ref.orElse(s.types.headOption)),
      List(Some("#/components/schemas/Problem"), Some("null"))
    )
    assertEquals(problems(doc.toYaml), Nil)
  }

  test("an endpoint without outputs answers 200, empty; one without inputs documents no 400") {
    val e = endpoint.post.in("reset").out(emptyOutput)
    val doc = OpenApiInterpreter().toOpenApi(List(e), "x", "1")
    val responses = doc.paths("/reset").operations("post").responses
    assertEquals(responses.keys.toList, List("200", "500"))
    assertEquals(responses("200"), Response("OK"))
    assertEquals(problems(doc.toYaml), Nil)
  }

  test("a body read as a stream is binary, application/octet-stream, whichever stream reads it") {
    val es = List(publisherBody, inputStreamBody).zipWithIndex.map((b, i) => endpoint.post.in(s"up$i").in(b))
    val doc = OpenApiInterpreter().toOpenApi(es, "x", "1")
    for i <- 0 to 1 do
      val body = doc.paths(s"/up$i").operations("post").requestBody.get
      assertEquals(body.content.keys.toList, List("application/octet-stream"))
      assertEquals(
        body.content("application/octet-stream").schema,
        SchemaObject(types = List("string"), format = Some("binary"))
      )
    assertEquals(problems(doc.toYaml), Nil)
  }

  test("a stream of JSON values is an array of its element, as application/json or application/x-ndjson") {
    val e = endpoint.post
      .in("authors")
      .in(rapier.json.jsoniter.jsonArrayBody[RichApi.Author])
      .out(rapier.json.jsoniter.ndjsonBody[RichApi.Author])
    val doc = OpenApiInterpreter().toOpenApi(List(e), "x", "1")
    val operation = doc.paths("/authors").operations("post")
    val array = SchemaObject(types = List("array"), items = Some(SchemaObject.ref("Author")))
    assertEquals(operation.requestBody.get.content.keys.toList, List("application/json"))
    assertEquals(operation.requestBody.get.content("application/json").schema, array)
    assertEquals(operation.responses("200").content.keys.toList, List("application/x-ndjson"))
    assertEquals(operation.responses("200").content("application/x-ndjson").schema, array)
    assertEquals(problems(doc.toYaml), Nil)
  }

  test("a file body is binary, application/octet-stream; a GET's ranges are a 206 and a 416") {
    val doc = OpenApiInterpreter().toOpenApi(
      List(endpoint.get.in("file").out(fileBody), endpoint.post.in("made").out(fileBody)),
      "x",
      "1"
    )
    val responses = doc.paths("/file").operations("get").responses
    val binary = SchemaObject(types = List("string"), format = Some("binary"))
    assertEquals(responses("200").content("application/octet-stream").schema, binary)
    assertEquals(responses.keys.toList, List("200", "206", "416", "500"))
    assertEquals(responses("200").headers.keys.toList, List("Accept-Ranges"))
    assertEquals(responses("206").headers.keys.toList, List("Content-Range"))
    assertEquals(responses("206").content("application/octet-stream").schema, binary)
    assertEquals(responses("416").content.keys.toList, List("application/problem+json"))
    // Only a GET is answered with a range
    assertEquals(doc.paths("/made").operations("post").responses.keys.toList, List("200", "500"))
    assertEquals(problems(doc.toYaml), Nil)
  }

  test("each status the server answers by itself is documented where the endpoint allows it, as a problem") {
    given com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec[List[String]] =
      com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker.make
    val json = endpoint.post.in("json").in(jsonBody[List[String]]).out(stringBody)
    val bytes = endpoint.put.in("bytes").in(byteArrayBody).out(oneOfBody(stringBody, plainBody[String]))
    val upload = endpoint.post.in("upload").in(fileBody).out(emptyOutput)
    val socket = endpoint.get.in("ws").out(webSocketBody[String, String])
    val doc = OpenApiInterpreter().toOpenApi(List(json, bytes, upload, socket), "x", "1")
    def statuses(path: String, method: String) = doc.paths(path).operations(method).responses.keys.toList
    assertEquals(statuses("/json", "post"), List("200", "400", "408", "413", "415", "500", "503"))
    assertEquals(statuses("/bytes", "put"), List("200", "400", "406", "408", "413", "500", "503"))
    assertEquals(statuses("/upload", "post"), List("200", "400", "408", "413", "500"))
    assertEquals(statuses("/ws", "get"), List("101", "426", "500"))
    val busy = doc.paths("/json").operations("post").responses("503")
    assertEquals(busy.headers.keys.toList, List("Retry-After"))
    assertEquals(busy.content("application/problem+json").schema.ref, Some("#/components/schemas/Problem"))
    val own = OpenApiInterpreter(OpenApiOptions().withoutServerAnswers).toOpenApi(List(json, bytes), "x", "1")
    assertEquals(own.paths("/json").operations("post").responses.keys.toList, List("200"))
    assertEquals(problems(doc.toYaml), Nil)
  }

  test("a document of no endpoints is still valid") {
    val empty = OpenApiInterpreter().toOpenApi(Nil, "Nothing", "0")
    assertEquals(problems(empty.toYaml), Nil)
  }

  test("a JSON example is embedded as JSON; an invalid one as its text") {
    val body = document.paths("/books").operations("post").requestBody.get.content("application/json")
    assertEquals(body.example, Some(Json.obj("id" -> Json.Num(1), "title" -> Json.Str("Dune"))))
    val e = endpoint.post.in(jsonBody[RichApi.Author].example("{not json")).out(stringBody)
    val doc = OpenApiInterpreter().toOpenApi(List(e), "x", "1")
    assertEquals(
      doc.paths("/").operations("post").requestBody.get.content("application/json").example,
      Some(Json.Str("{not json"))
    )
  }
