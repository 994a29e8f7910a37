package rapier.openapi

import scala.collection.immutable.ListMap

/**
 * An OpenAPI 3.1 document: what [[OpenApiInterpreter]] makes of a list of endpoints. Plain, immutable data; change
 * it with `copy` or the `with…` methods, then write it with [[toJson]] or [[toYaml]]. Members keep their order, so
 * the same document is always written with the same bytes.
 */
final case class OpenApi(
    info: Info,
    paths: ListMap[String, PathItem] = ListMap.empty,
    components: Components = Components(),
    servers: List[Server] = Nil,
    security: List[SecurityRequirement] = Nil,
    tags: List[Tag] = Nil,
    openapi: String = "3.1.0"
):
  def withServers(ss: List[Server]): OpenApi = copy(servers = ss)
  def addServer(url: String, description: Option[String] = None): OpenApi =
    copy(servers = servers :+ Server(url, description))
  def withTags(ts: List[Tag]): OpenApi = copy(tags = ts)

  /** The document as pretty-printed JSON, with a final newline. */
  def toJson: String = internal.DocumentWriter.json(this)

  /** The document as YAML 1.2, with a final newline. */
  def toYaml: String = internal.DocumentWriter.yaml(this)

/** The API's title and version, and what it is about. */
final case class Info(
    title: String,
    version: String,
    summary: Option[String] = None,
    description: Option[String] = None
)

/** A server the API is served from. */
final case class Server(url: String, description: Option[String] = None)

/** A tag that groups operations, with its description. */
final case class Tag(name: String, description: Option[String] = None)

/** The operations on one path, by method (lower case: `get`, `post`, …), in the order of the endpoints. */
final case class PathItem(operations: ListMap[String, Operation] = ListMap.empty)

/** One endpoint, documented. */
final case class Operation(
    operationId: String,
    summary: Option[String] = None,
    description: Option[String] = None,
    tags: List[String] = Nil,
    parameters: List[Parameter] = Nil,
    requestBody: Option[RequestBody] = None,
    responses: ListMap[String, Response] = ListMap.empty,
    security: List[SecurityRequirement] = Nil,
    deprecated: Boolean = false
)

/** Where a parameter is read. */
enum ParameterLocation:
  case Path, Query, Header, Cookie

  /** As OpenAPI writes it: `path`, `query`, `header`, `cookie`. */
  def label: String = toString.toLowerCase

/** A path, query, header or cookie parameter. */
final case class Parameter(
    name: String,
    in: ParameterLocation,
    schema: SchemaObject,
    required: Boolean,
    description: Option[String] = None,
    deprecated: Boolean = false,
    example: Option[Json] = None
)

/** A request body, by media type. */
final case class RequestBody(
    content: ListMap[String, MediaTypeObject],
    required: Boolean = true,
    description: Option[String] = None
)

/** A body in one media type: its schema and an example. */
final case class MediaTypeObject(schema: SchemaObject, example: Option[Json] = None)

/** One response, under its status code (or `default`) in an operation. */
final case class Response(
    description: String,
    headers: ListMap[String, HeaderObject] = ListMap.empty,
    content: ListMap[String, MediaTypeObject] = ListMap.empty
)

/** A response header. */
final case class HeaderObject(
    schema: SchemaObject,
    required: Boolean = true,
    description: Option[String] = None
)

/** Reusable parts of the document, by name. */
final case class Components(
    schemas: ListMap[String, SchemaObject] = ListMap.empty,
    securitySchemes: ListMap[String, SecurityScheme] = ListMap.empty
)

/** How credentials are presented: HTTP Basic or Bearer, or an API key in a header, query parameter or cookie. */
enum SecurityScheme:
  case Http(scheme: String, description: Option[String] = None)
  case ApiKey(in: ParameterLocation, name: String, description: Option[String] = None)

/** Security schemes that must all be satisfied, by name (with their scopes, empty here). */
type SecurityRequirement = ListMap[String, List[String]]
