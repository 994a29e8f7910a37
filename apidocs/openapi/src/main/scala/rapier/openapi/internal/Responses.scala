package rapier.openapi.internal

import rapier.*
import rapier.model.{HeaderNames, StatusCode}
import rapier.openapi.*

import scala.collection.immutable.ListMap

/**
 * The responses of an operation: the success output under its status code (200 unless it sets one), the error
 * output's variants each under theirs (400 for an error output without one, as the server answers), and what the
 * server itself answers ([[ServerAnswers]]): 400 for a request whose inputs don't decode, 401 with a challenge for a
 * secured endpoint, and each other status its inputs and outputs allow.
 * An output whose status code the logic chooses is the `default` response. Several outputs under one status code
 * share the response; bodies of one media type become a `oneOf`.
 */
private[openapi] final class Responses(
    schemas: SchemaComponents,
    options: OpenApiOptions,
    body: EndpointIO.Body[?, ?] => (String, MediaTypeObject)
):
  /** One output's part of a response, before outputs sharing a status code are merged. */
  private final case class Part(
      descriptions: List[String],
      headers: ListMap[String, HeaderObject],
      bodies: List[(String, MediaTypeObject)]
  )

  private lazy val problem = "application/problem+json" -> MediaTypeObject(schemas.problem)

  private val challenge = ListMap(
    HeaderNames.WwwAuthenticate -> HeaderObject(
      SchemaObject.of("string"),
      description = Some("The challenge naming the accepted schemes")
    )
  )

  def of(e: AnyEndpoint, inputs: List[EndpointInput.Basic[?]], secured: Boolean): ListMap[String, Response] =
    val success = ranged(e, parts(e.output, StatusCode.Ok))
    // An endpoint without an error output sends none; one without an output still answers 200, empty.
    val errors = if Inputs.outputs(e.errorOutput).isEmpty then Nil else parts(e.errorOutput, StatusCode.BadRequest)
    val unauthorized =
      if secured then List("401" -> Part(List("Credentials are missing or invalid"), challenge, List(problem)))
      else Nil
    val answers =
      if options.documentServerAnswers then ServerAnswers.of(e, inputs, inputs.exists(decodable)) else Nil
    val own =
      (answers.map((status, description, retry) =>
        status -> Part(List(description), if retry then retryAfter else ListMap.empty, List(problem))
      ) ++ unauthorized).sortBy((status, _) => order(status))
    // The server's answers share a status code with the endpoint's own outputs there: both can be sent.
    val all = success ++ errors ++ own
    val grouped = all.groupBy(_._1).view.mapValues(_.map(_._2)).toMap
    ListMap.from(all.map(_._1).distinct.sortBy(order).map(status => status -> merge(status, grouped(status))))

  /**
   * A GET whose one success sends a file answers byte ranges of it too, as the server does: the 200 says so in its
   * `Accept-Ranges`, a 206 carries the range a `Range` header asks for, a 416 answers one that holds none of its bytes.
   */
  private def ranged(e: AnyEndpoint, success: List[(String, Part)]): List[(String, Part)] =
    val sendsFile = Inputs.outputs(e.output).exists {
      case b: EndpointIO.Body[?, ?] => b.raw == RawBodyType.FileBody
      case _ => false
    }
    success match
      case List(("200", whole)) if sendsFile && e.httpMethod.contains(rapier.model.Method.GET) =>
        List(
          "200" -> whole.copy(headers = whole.headers ++ acceptRanges),
          "206" -> Part(
            List("The byte range the request's Range header asks for"),
            whole.headers ++ contentRange,
            whole.bodies
          ),
          "416" -> Part(List("The range asked for holds no byte of the file"), contentRange, List(problem))
        )
      case _ => success

  /** A header every such response carries: a string, of one fixed value when `const` is given. */
  private def stringHeader(description: Option[String], const: Option[String] = None): HeaderObject =
    HeaderObject(SchemaObject.of("string").copy(const = const.map(Json.Str(_))), true, description)

  private lazy val retryAfter =
    ListMap(HeaderNames.RetryAfter -> stringHeader(Some("How many seconds to wait before trying again")))

  private lazy val acceptRanges =
    ListMap(HeaderNames.AcceptRanges -> stringHeader(Some("Ranges of bytes may be asked for"), Some("bytes")))
  private lazy val contentRange = ListMap(
    HeaderNames.ContentRange -> stringHeader(Some("The range sent and the file's length: `bytes first-last/length`"))
  )

  /** Status codes in numeric order, `default` last. */
  private def order(status: String): Int = status.toIntOption.getOrElse(1000)

  private def decodable(input: EndpointInput.Basic[?]): Boolean = input match
    case _: EndpointInput.FixedMethod | _: EndpointInput.FixedPath => false
    case _: EndpointInput.Auth[?] | _: EndpointInput.AuthAlternatives[?] => false
    case _ => true

  private def merge(status: String, ps: List[Part]): Response =
    val descriptions = ps.flatMap(_.descriptions).distinct
    val description =
      if descriptions.nonEmpty then descriptions.mkString("; ")
      else status.toIntOption.fold("Any other response")(c => StatusCode(c).reason)
    val bodies = ps.flatMap(_.bodies).groupBy(_._1)
    val content = ps.flatMap(_.bodies).map(_._1).distinct.map { mediaType =>
      bodies(mediaType).map(_._2).distinct match
        case one :: Nil => mediaType -> one
        case many => mediaType -> MediaTypeObject(SchemaObject(oneOf = many.map(_.schema).distinct))
    }
    Response(description, ps.map(_.headers).reduce(_ ++ _), ListMap.from(content))

  /** The parts of a response an output writes, by status code. */
  private def parts(output: EndpointOutput[?], defaultStatus: StatusCode): List[(String, Part)] =
    val outputs = Inputs.outputs(output)
    outputs.collectFirst { case o: EndpointOutput.OneOf[?] => o } match
      case Some(oneOf) =>
        // A oneOf's variants each go under their own status; the outputs beside it apply to all of them.
        val beside = part(outputs.filterNot(_ == oneOf))
        oneOf.variants.map { v =>
          val variantOutputs = Inputs.outputs(v.output)
          val own = part(variantOutputs)
          val status = v.statusCode.orElse(fixedStatus(variantOutputs)).orElse(fixedStatus(outputs))
          val description = v.description.toList ++ own.descriptions
          statusKey(status, defaultStatus) -> Part(
            description ++ beside.descriptions,
            beside.headers ++ own.headers,
            beside.bodies ++ own.bodies
          )
        }
      case None =>
        val chosen = outputs.exists(_.isInstanceOf[EndpointOutput.StatusCodeValue])
        val status = fixedStatus(outputs)
        val webSocket = outputs.exists(_.isInstanceOf[EndpointOutput.WebSocketBody[?, ?, ?]])
        val key =
          if webSocket then "101" else if chosen && status.isEmpty then "default" else statusKey(status, defaultStatus)
        List(key -> part(outputs))

  private def statusKey(status: Option[StatusCode], default: StatusCode): String =
    status.getOrElse(default).code.toString

  private def fixedStatus(outputs: List[EndpointOutput[?]]): Option[StatusCode] =
    outputs.collectFirst { case EndpointOutput.FixedStatusCode(code, _) => code }

  /** What a WebSocket's messages are, in words: OpenAPI has no way to describe them otherwise. */
  private def webSocket(w: EndpointOutput.WebSocketBody[?, ?, ?]): String =
    def messages(c: rapier.WebSocketCodec[?]) = s"${c.kind} messages (${c.mediaType.copy(charset = None).render})"
    s"Switching Protocols: the connection becomes a WebSocket (RFC 6455). The client sends ${messages(w.in)}, the " +
      s"server ${messages(w.out)}, each at most ${w.maxMessageSize} bytes."

  private def part(outputs: List[EndpointOutput[?]]): Part =
    val descriptions = outputs.flatMap {
      case EndpointOutput.FixedStatusCode(_, info) => info.description
      case b: EndpointIO.Body[?, ?] => b.info.description
      case b: EndpointIO.OneOfBody[?] => b.info.description
      case w: EndpointOutput.WebSocketBody[?, ?, ?] => w.info.description.toList :+ webSocket(w)
      case _ => None
    }
    val headers = outputs.flatMap {
      case EndpointIO.Header(name, codec, info) if !name.equalsIgnoreCase(HeaderNames.ContentType) =>
        List(name -> HeaderObject(schemas.required(codec.schema), schemas.isRequired(codec.schema), info.description))
      case EndpointIO.FixedHeader(name, value, info) if !name.equalsIgnoreCase(HeaderNames.ContentType) =>
        List(name -> stringHeader(info.description, Some(value)))
      case _: EndpointOutput.WebSocketBody[?, ?, ?] =>
        List(
          HeaderNames.Upgrade -> stringHeader(None, Some("websocket")),
          HeaderNames.Connection -> stringHeader(None, Some("Upgrade")),
          "Sec-WebSocket-Accept" ->
            stringHeader(Some("The answer to the request's Sec-WebSocket-Key (RFC 6455 §4.2.2)"))
        )
      case EndpointOutput.SetCookie(name, _, info) =>
        List(
          HeaderNames.SetCookie -> HeaderObject(
            SchemaObject.of("string"),
            required = false,
            description = info.description.orElse(Some(s"Sets the cookie $name"))
          )
        )
      case _ => Nil
    }
    val bodies = outputs.flatMap {
      case b: EndpointIO.Body[?, ?] => List(body(b))
      case b: EndpointIO.OneOfBody[?] => b.variants.map(body)
      case _ => Nil
    }
    Part(descriptions, ListMap.from(headers), bodies)

/** The schema of the problem details (RFC 9457) the server answers its own errors with. */
private[openapi] object Problems:
  private val string = SchemaObject.of("string")

  val schema: SchemaObject = SchemaObject(
    types = List("object"),
    description = Some("Problem details (RFC 9457)"),
    properties = ListMap(
      "type" -> string,
      "title" -> string,
      "status" -> SchemaObject.of("integer", Some("int32")),
      "detail" -> string,
      "errors" -> SchemaObject(
        types = List("array"),
        description = Some("Each input that failed, and how"),
        items = Some(
          SchemaObject(
            types = List("object"),
            properties = ListMap(
              "location" -> string.copy(description = Some("Where: query.limit, body.items[2].price, …")),
              "rule" -> string.copy(description = Some("The rule broken: required, format, minimum, …")),
              "expected" -> string,
              "message" -> string
            ),
            required = List("location", "rule", "expected", "message")
          )
        )
      ),
      "requestId" -> string
    ),
    required = List("type", "title", "status", "detail")
  )
