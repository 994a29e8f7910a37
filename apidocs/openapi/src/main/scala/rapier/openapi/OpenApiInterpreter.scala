package rapier.openapi

import rapier.*
import rapier.openapi.internal.*

import scala.collection.immutable.ListMap
import scala.collection.mutable

/**
 * What the documentation says beyond the endpoints themselves.
 *
 * @param documentServerAnswers
 *   document, on each endpoint, the answers the server gives by itself with a problem-details body: 400 for inputs
 *   that don't decode, 401 for refused credentials, 406, 408, 413, 415 and 503 where its bodies allow them, 426 for a
 *   WebSocket's handshake and 500 for a failed logic (beside the endpoint's own outputs on those statuses)
 */
final case class OpenApiOptions(documentServerAnswers: Boolean = true):
  /** Documents only the endpoints' own outputs (and the 401 challenge of a secured one). */
  def withoutServerAnswers: OpenApiOptions = copy(documentServerAnswers = false)

/**
 * Documents endpoints as an OpenAPI 3.1 document: paths and parameters with their schemas and validation rules,
 * request bodies and every response by content type, headers, security schemes, tags, operation ids and
 * deprecation. Named schemas (case classes, sealed traits, enums) become components.
 * {{{
 * val docs: OpenApi = OpenApiInterpreter().toOpenApi(List(getBook, addBook), "Books", "1.0")
 * Files.writeString(Path.of("openapi.yaml"), docs.toYaml)
 * }}}
 *
 * The same endpoints always give the same document. An operation's id is the endpoint's name, or is made from its
 * method and path (`getBooksId`); a second operation with the same id gets `_2`, and so on, in the order given.
 * Endpoints that accept any method are documented under each method. Of two endpoints with one method and path,
 * the first is documented, as the server serves the first.
 */
final class OpenApiInterpreter(options: OpenApiOptions = OpenApiOptions()):
  def toOpenApi(endpoints: Iterable[AnyEndpoint], title: String, version: String): OpenApi =
    toOpenApi(endpoints, Info(title, version))

  def toOpenApi(endpoints: Iterable[AnyEndpoint], info: Info): OpenApi =
    val list = endpoints.toList
    val schemas = SchemaComponents(list.flatMap(OpenApiInterpreter.schemasOf))
    val operations = Operations(schemas, options)
    val used = mutable.Set[String]()
    def unique(id: String): String =
      val free = Iterator.single(id) ++ Iterator.from(2).map(n => s"${id}_$n")
      val chosen = free.find(!used(_)).get
      used += chosen
      chosen
    val paths = mutable.LinkedHashMap[String, ListMap[String, Operation]]()
    for e <- list do
      val path = operations.pathOf(e)
      val id = e.info.name.getOrElse(operations.derivedId(e))
      val methods = e.httpMethod match
        case Some(m) => List(m.name.toLowerCase -> id)
        case None => OpenApiInterpreter.Methods.map(m => m -> s"$id${m.head.toUpper}${m.tail}")
      for (method, methodId) <- methods do
        val existing = paths.getOrElse(path, ListMap.empty)
        if !existing.contains(method) then
          paths(path) = existing + (method -> operations.operation(e, unique(methodId)))
    val all = paths.values.flatMap(_.values).toList
    val schemes = list.flatMap(e => Endpoint.authSchemes(e.securityInput) ++ Endpoint.authSchemes(e.input))
    val securitySchemes =
      ListMap.from(schemes.map(s => SecuritySchemes.name(s) -> SecuritySchemes.of(s)).distinctBy(_._1).sortBy(_._1))
    OpenApi(
      info = info,
      paths = ListMap.from(paths.map((path, ops) => path -> PathItem(ops))),
      components = Components(schemas.schemas, securitySchemes),
      tags = all.flatMap(_.tags).distinct.map(Tag(_))
    )

object OpenApiInterpreter:
  /** The methods an endpoint that accepts any method is documented under. */
  private val Methods = List("get", "put", "post", "delete", "patch")

  /** Every schema an endpoint's inputs and outputs carry. */
  private def schemasOf(e: AnyEndpoint): List[Schema[?]] =
    val inputs = (Inputs.basics(e.securityInput) ++ Inputs.basics(e.input)).flatMap {
      case EndpointInput.PathCapture(_, codec, _, _) => List(codec.schema)
      case EndpointInput.Query(_, codec, _) => List(codec.schema)
      case EndpointInput.Cookie(_, codec, _) => List(codec.schema)
      case EndpointIO.Header(_, codec, _) => List(codec.schema)
      case EndpointIO.Body(_, codec, _) => List(codec.schema)
      case EndpointIO.OneOfBody(variants, _) => variants.map(_.codec.schema)
      case _ => Nil
    }
    inputs ++ outputSchemas(e.output) ++ outputSchemas(e.errorOutput)

  private def outputSchemas(o: EndpointOutput[?]): List[Schema[?]] = Inputs.outputs(o).flatMap {
    case EndpointIO.Header(_, codec, _) => List(codec.schema)
    case EndpointIO.Body(_, codec, _) => List(codec.schema)
    case EndpointIO.OneOfBody(variants, _) => variants.map(_.codec.schema)
    case EndpointOutput.OneOf(variants) => variants.flatMap(v => outputSchemas(v.output))
    case _ => Nil
  }
