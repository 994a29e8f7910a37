package rapier.openapi.internal

import rapier.*
import rapier.model.HeaderNames
import rapier.openapi.*

import scala.collection.immutable.ListMap

/**
 * Documents one endpoint as an operation: its path template, parameters, request body, responses and security.
 * Inputs and outputs are walked in the order they were declared.
 */
private[openapi] final class Operations(schemas: SchemaComponents, options: OpenApiOptions):
  private val responses = Responses(schemas, options, body)

  /** The OpenAPI path of an endpoint: `/books/{id}`; a capture of the path's rest shows as one parameter. */
  def pathOf(e: AnyEndpoint): String =
    val parts = Endpoint.pathParts(e.securityInput) ++ Endpoint.pathParts(e.input)
    val names = parameterNames(e)
    if parts.isEmpty then "/" else parts.map(p => "/" + segment(p, names)).mkString

  def operation(e: AnyEndpoint, operationId: String): Operation =
    val inputs = Inputs.basics(e.securityInput) ++ Inputs.basics(e.input)
    val names = parameterNames(e)
    val parameters = inputs.flatMap(parameter(_, names))
    val requestBody = inputs.collectFirst {
      case b: EndpointIO.Body[?, ?] =>
        RequestBody(ListMap(body(b)), required = !b.codec.schema.isOptional, description = b.info.description)
      case b: EndpointIO.OneOfBody[?] =>
        RequestBody(ListMap.from(b.variants.map(body)), description = b.info.description)
    }
    val requirements = security(inputs)
    Operation(
      operationId = operationId,
      summary = e.info.summary,
      description = e.info.description,
      tags = e.info.tags,
      parameters = parameters,
      requestBody = requestBody,
      responses = responses.of(e, inputs, secured = requirements.nonEmpty),
      security = requirements,
      deprecated = e.info.deprecated
    )

  /** An operation id from the method and path when the endpoint has no name: `getBooksId`. */
  def derivedId(e: AnyEndpoint): String =
    val method = e.httpMethod.fold("any")(_.name.toLowerCase)
    val words = pathOf(e).split("[^A-Za-z0-9]+").filter(_.nonEmpty).map(w => w.head.toUpper.toString + w.tail)
    method + words.mkString

  /** The requirement objects: all the schemes of a `securityIn` together, or one of several alternatives. */
  private def security(inputs: List[EndpointInput.Basic[?]]): List[SecurityRequirement] =
    val all = inputs.collect { case EndpointInput.Auth(scheme, _, _) => SecuritySchemes.name(scheme) }
    val alternatives = inputs.collect { case EndpointInput.AuthAlternatives(as, _) =>
      as.map(a => SecuritySchemes.name(a.scheme))
    }
    val together: SecurityRequirement = ListMap.from(all.map(_ -> Nil))
    alternatives match
      case Nil => if all.isEmpty then Nil else List(together)
      case first :: _ => first.map(name => together + (name -> Nil))

  /** The names of path parameters; unnamed captures are `param1`, `param2`, …, the path's rest `paths`. */
  private def parameterNames(e: AnyEndpoint): Map[EndpointInput.Basic[?], String] =
    var unnamed = 0
    (Endpoint.pathParts(e.securityInput) ++ Endpoint.pathParts(e.input)).collect {
      case p @ EndpointInput.PathCapture(name, _, _, _) =>
        p ->
          (if name.nonEmpty then name
           else
             unnamed += 1
             s"param$unnamed")
      case p: EndpointInput.PathsCapture[?] => p -> "paths"
    }.toMap

  private def segment(p: EndpointInput.Basic[?], names: Map[EndpointInput.Basic[?], String]): String = p match
    case EndpointInput.FixedPath(s, _) => s
    case other => s"{${names(other)}}"

  private def parameter(input: EndpointInput.Basic[?], names: Map[EndpointInput.Basic[?], String]): Option[Parameter] =
    input match
      case p @ EndpointInput.PathCapture(_, codec, info, _) =>
        Some(decoded(names(p), ParameterLocation.Path, codec.schema, info, required = true))
      case p @ EndpointInput.PathsCapture(_, info) =>
        val description = info.description.getOrElse("The rest of the path: one or more segments, separated by '/'.")
        Some(Parameter(names(p), ParameterLocation.Path, SchemaObject.of("string"), true, Some(description)))
      case EndpointInput.Query(name, codec, info) =>
        Some(decoded(name, ParameterLocation.Query, codec.schema, info, schemas.isRequired(codec.schema)))
      case EndpointInput.Cookie(name, codec, info) =>
        Some(decoded(name, ParameterLocation.Cookie, codec.schema, info, schemas.isRequired(codec.schema)))
      case EndpointIO.Header(name, codec, info) if documentedHeader(name) =>
        Some(decoded(name, ParameterLocation.Header, codec.schema, info, schemas.isRequired(codec.schema)))
      case EndpointIO.FixedHeader(name, value, info) if documentedHeader(name) =>
        Some(Parameter(
          name,
          ParameterLocation.Header,
          SchemaObject.of("string").copy(const = Some(Json.Str(value))),
          true,
          info.description
        ))
      case _ => None

  /** A parameter a codec decodes: its schema, and its example typed by that schema. */
  private def decoded(
      name: String,
      in: ParameterLocation,
      schema: Schema[?],
      info: IOInfo,
      required: Boolean
  ): Parameter =
    val json = schemas.required(schema)
    Parameter(name, in, json, required, info.description, info.deprecated, info.example.map(Examples.of(_, json)))

  /** OpenAPI describes these with the body and security, and tells documents not to list them as parameters. */
  private def documentedHeader(name: String): Boolean =
    !name.equalsIgnoreCase(HeaderNames.ContentType) && !name.equalsIgnoreCase(HeaderNames.Accept) &&
      !name.equalsIgnoreCase(HeaderNames.Authorization)

  /** A body's media type (without parameters other than the charset), schema and example. */
  private def body(b: EndpointIO.Body[?, ?]): (String, MediaTypeObject) =
    val mediaType = b.codec.mediaType
    val schema = b.raw match
      case RawBodyType.ByteArrayBody if b.codec.schema.schemaType == SchemaType.SBinary =>
        SchemaObject(types = List("string"), format = Some("binary"))
      // A problem document as text (a static service's 404) has the shape of the server's own.
      case _: RawBodyType.StringBody if mediaType.mainType == "application" && mediaType.subType == "problem+json" =>
        schemas.problem
      case _ => schemas(b.codec.schema)
    val example = b.info.example.map(e => if mediaType.subType.endsWith("json") then Examples.json(e) else Json.Str(e))
    mediaType.copy(parameters = Nil).render -> MediaTypeObject(schema, example)

private[openapi] object Inputs:
  /** The basic inputs of a tree, in order. */
  def basics(input: EndpointInput[?]): List[EndpointInput.Basic[?]] = IOTree.ofInput(input).leaves

  /** The basic outputs of a tree, in order; a `oneOf` stays whole. */
  def outputs(output: EndpointOutput[?]): List[EndpointOutput[?]] = IOTree.ofOutput(output).leaves

/** Security scheme objects and their names in `components.securitySchemes`. */
private[openapi] object SecuritySchemes:
  def name(s: AuthScheme): String = s match
    case _: AuthScheme.Basic => "basicAuth"
    case _: AuthScheme.Bearer => "bearerAuth"
    case AuthScheme.ApiKey(in, name, _) =>
      s"apiKey${in}_" + name.map(c => if c.isLetterOrDigit && c < 128 || c == '-' || c == '_' then c else '_')

  def of(s: AuthScheme): SecurityScheme = s match
    case _: AuthScheme.Basic => SecurityScheme.Http("basic")
    case _: AuthScheme.Bearer => SecurityScheme.Http("bearer")
    case AuthScheme.ApiKey(in, name, _) =>
      val location = in match
        case ApiKeyLocation.Header => ParameterLocation.Header
        case ApiKeyLocation.Query => ParameterLocation.Query
        case ApiKeyLocation.Cookie => ParameterLocation.Cookie
      SecurityScheme.ApiKey(location, name)
