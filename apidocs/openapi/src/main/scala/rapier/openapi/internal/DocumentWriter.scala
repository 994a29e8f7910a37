package rapier.openapi.internal

import com.fasterxml.jackson.core.util.{DefaultIndenter, DefaultPrettyPrinter, Separators}
import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}
import com.fasterxml.jackson.dataformat.yaml.{YAMLFactory, YAMLGenerator}
import rapier.openapi.*

import java.io.StringWriter
import scala.collection.immutable.ListMap

/**
 * Writes a document through Jackson's streaming generators: the document becomes a [[Json]] tree, in the order the
 * OpenAPI specification lists each object's fields, and the tree is written as JSON or YAML. Empty lists and maps
 * and absent options are left out.
 */
private[openapi] object DocumentWriter:
  private val jsonFactory = JsonFactory()
  private val yamlFactory = YAMLFactory
    .builder()
    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
    // A string such as "1.0" is quoted, or YAML would read a number.
    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
    .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
    .build()

  def json(document: OpenApi): String =
    val out = StringWriter()
    val generator = jsonFactory.createGenerator(out)
    val indenter = DefaultIndenter("  ", "\n")
    val separators = Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER)
    generator.setPrettyPrinter(
      DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter)
    )
    write(generator, tree(document))
    generator.close()
    out.append('\n').toString

  def yaml(document: OpenApi): String =
    val out = StringWriter()
    val generator = yamlFactory.createGenerator(out)
    write(generator, tree(document))
    generator.close()
    out.toString

  private def write(g: JsonGenerator, value: Json): Unit = value match
    case Json.Null => g.writeNull()
    case Json.Bool(b) => g.writeBoolean(b)
    case Json.Num(n) => g.writeNumber(n.bigDecimal)
    case Json.Str(s) => g.writeString(s)
    case Json.Arr(values) =>
      g.writeStartArray()
      values.foreach(write(g, _))
      g.writeEndArray()
    case Json.Obj(members) =>
      g.writeStartObject()
      members.foreach { (name, v) =>
        g.writeFieldName(name)
        write(g, v)
      }
      g.writeEndObject()

  /** An object of the members that are present. */
  private def obj(members: (String, Option[Json])*): Json =
    Json.Obj(ListMap.from(members.collect { case (name, Some(v)) => name -> v }))

  private def str(s: String): Option[Json] = Some(Json.Str(s))
  private def str(s: Option[String]): Option[Json] = s.map(Json.Str(_))
  private def flag(b: Boolean): Option[Json] = if b then Some(Json.Bool(true)) else None
  private def int(i: Option[Int]): Option[Json] = i.map(n => Json.Num(BigDecimal(n)))
  private def num(n: Option[BigDecimal]): Option[Json] = n.map(Json.Num(_))
  private def list[A](as: List[A])(f: A => Json): Option[Json] = if as.isEmpty then None else Some(Json.Arr(as.map(f)))
  private def map[A](as: ListMap[String, A])(f: A => Json): Option[Json] =
    if as.isEmpty then None else Some(Json.Obj(as.map((k, v) => k -> f(v))))

  def tree(d: OpenApi): Json = obj(
    "openapi" -> str(d.openapi),
    "info" -> Some(info(d.info)),
    "servers" -> list(d.servers)(s => obj("url" -> str(s.url), "description" -> str(s.description))),
    "security" -> list(d.security)(requirement),
    "tags" -> list(d.tags)(t => obj("name" -> str(t.name), "description" -> str(t.description))),
    // An API of no endpoints still has (empty) paths: a document needs paths, components or webhooks.
    "paths" -> Some(Json.Obj(d.paths.map((path, item) => path -> Json.Obj(item.operations.map(_ -> operation(_)))))),
    "components" -> components(d.components)
  )

  private def info(i: Info): Json = obj(
    "title" -> str(i.title),
    "summary" -> str(i.summary),
    "description" -> str(i.description),
    "version" -> str(i.version)
  )

  private def requirement(r: SecurityRequirement): Json =
    Json.Obj(r.map((name, scopes) => name -> Json.Arr(scopes.map(Json.Str(_)))))

  private def operation(o: Operation): Json = obj(
    "tags" -> list(o.tags)(Json.Str(_)),
    "summary" -> str(o.summary),
    "description" -> str(o.description),
    "operationId" -> str(o.operationId),
    "parameters" -> list(o.parameters)(parameter),
    "requestBody" -> o.requestBody.map(b =>
      obj("description" -> str(b.description), "content" -> map(b.content)(mediaType), "required" -> flag(b.required))
    ),
    "responses" -> map(o.responses)(response),
    "deprecated" -> flag(o.deprecated),
    "security" -> list(o.security)(requirement)
  )

  private def parameter(p: Parameter): Json = obj(
    "name" -> str(p.name),
    "in" -> str(p.in.label),
    "description" -> str(p.description),
    "required" -> flag(p.required),
    "deprecated" -> flag(p.deprecated),
    "schema" -> Some(schema(p.schema)),
    "example" -> p.example
  )

  private def mediaType(m: MediaTypeObject): Json = obj("schema" -> Some(schema(m.schema)), "example" -> m.example)

  private def response(r: Response): Json = obj(
    "description" -> str(r.description),
    "headers" -> map(r.headers)(h =>
      obj("description" -> str(h.description), "required" -> flag(h.required), "schema" -> Some(schema(h.schema)))
    ),
    "content" -> map(r.content)(mediaType)
  )

  private def components(c: Components): Option[Json] =
    if c.schemas.isEmpty && c.securitySchemes.isEmpty then None
    else Some(obj("schemas" -> map(c.schemas)(schema), "securitySchemes" -> map(c.securitySchemes)(securityScheme)))

  private def securityScheme(s: SecurityScheme): Json = s match
    case SecurityScheme.Http(scheme, description) =>
      obj("type" -> str("http"), "description" -> str(description), "scheme" -> str(scheme))
    case SecurityScheme.ApiKey(in, name, description) =>
      obj("type" -> str("apiKey"), "description" -> str(description), "name" -> str(name), "in" -> str(in.label))

  def schema(s: SchemaObject): Json = obj(
    "$ref" -> str(s.ref),
    "type" ->
      (s.types match
        case Nil => None
        case one :: Nil => str(one)
        case many => Some(Json.Arr(many.map(Json.Str(_))))),
    "format" -> str(s.format),
    "description" -> str(s.description),
    "contentMediaType" -> str(s.contentMediaType),
    "properties" -> map(s.properties)(schema),
    "required" -> list(s.required)(Json.Str(_)),
    "additionalProperties" -> s.additionalProperties.map(schema),
    "items" -> s.items.map(schema),
    "oneOf" -> list(s.oneOf)(schema),
    "discriminator" -> s.discriminator.map(d =>
      obj("propertyName" -> str(d.propertyName), "mapping" -> map(d.mapping)(Json.Str(_)))
    ),
    "const" -> s.const,
    "enum" -> list(s.enumValues)(identity),
    "minimum" -> num(s.minimum),
    "exclusiveMinimum" -> num(s.exclusiveMinimum),
    "maximum" -> num(s.maximum),
    "exclusiveMaximum" -> num(s.exclusiveMaximum),
    "minLength" -> int(s.minLength),
    "maxLength" -> int(s.maxLength),
    "pattern" -> str(s.pattern),
    "minItems" -> int(s.minItems),
    "maxItems" -> int(s.maxItems),
    "deprecated" -> flag(s.deprecated),
    "examples" -> list(s.examples)(identity)
  )
