package rapier

import rapier.codec.FormCodec
import rapier.model.*

import java.io.InputStream
import java.nio.ByteBuffer
import java.nio.charset.{Charset, StandardCharsets}
import java.util.concurrent.Flow
import scala.reflect.ClassTag

/**
 * The endpoint with no inputs and no outputs, which every endpoint is built from:
 * {{{
 * endpoint.get.in("books" / path[Long]("id")).out(stringBody)
 * }}}
 */
val endpoint: Endpoint[Unit, Unit, Unit, Unit] =
  Endpoint(EndpointIO.Empty, EndpointIO.Empty, EndpointIO.Empty, EndpointIO.Empty, EndpointInfo.empty)

extension (segment: String)
  /** A fixed path segment and then `next`: `"books" / path[Long]("id")`. */
  def /[U](next: EndpointInput[U])(using a: Arity[U]): EndpointInput[U] =
    EndpointInput.Pair[Unit, U, U](EndpointInput.FixedPath(segment), next, 0, a.value)

  /** Two fixed path segments: `"api" / "v1"`. */
  def /(next: String): EndpointInput[Unit] =
    EndpointInput.Pair[Unit, Unit, Unit](EndpointInput.FixedPath(segment), EndpointInput.FixedPath(next), 0, 0)

/** A fixed path segment. */
def pathSegment(segment: String): EndpointInput.FixedPath = EndpointInput.FixedPath(segment)

/** The next path segment, as a `T`: `path[Long]("id")`. The name appears in documentation and error messages. */
def path[T](name: String)(using codec: Codec[String, T]): EndpointInput.PathCapture[T] =
  EndpointInput.PathCapture(name, codec)

/** All remaining path segments. */
def paths: EndpointInput.PathsCapture[List[String]] =
  EndpointInput.PathsCapture(Codec.id(summon[Schema[List[String]]]))

/**
 * A query parameter: `query[Int]("limit")` (exactly once), `query[Option[Int]]` (at most once),
 * `query[List[Int]]` (any number of times).
 */
def query[T](name: String)(using codec: Codec[List[String], T]): EndpointInput.Query[T] =
  EndpointInput.Query(name, codec)

/** All query parameters. */
def queryParams: EndpointInput.AllQuery[QueryParams] =
  EndpointInput.AllQuery(Codec.id(Schema(SchemaType.SOpenProduct(summon[Schema[String]]))))

/** A header: `header[String]("X-Trace")`, with `Option` and `List` as for query parameters. */
def header[T](name: String)(using codec: Codec[List[String], T]): EndpointIO.Header[T] = EndpointIO.Header(name, codec)

/** A header with a fixed value: required on requests, always sent on responses. */
def header(name: String, value: String): EndpointIO.FixedHeader = EndpointIO.FixedHeader(name, value)

/** All headers. */
def headers: EndpointIO.AllHeaders[List[Header]] =
  EndpointIO.AllHeaders(Codec.id(Schema(SchemaType.SArray(Schema[Header](SchemaType.SString)))))

/** A cookie from the request's `Cookie` header: `cookie[String]("session")` or `cookie[Option[String]]`. */
def cookie[T](name: String)(using codec: Codec[Option[String], T]): EndpointInput.Cookie[T] =
  EndpointInput.Cookie(name, codec)

/** All cookies of the request. */
def cookies: EndpointInput.ExtractFromRequest[List[Cookie]] =
  EndpointInput.ExtractFromRequest(r =>
    DecodeResult.Value(r.headerValues(HeaderNames.Cookie).flatMap(Cookie.parseHeader))
  )

/** A cookie to set, sent as a `Set-Cookie` header. */
def setCookie(name: String): EndpointOutput.SetCookie[CookieValueWithMeta] =
  EndpointOutput.SetCookie(
    name,
    Codec[Option[CookieValueWithMeta], CookieValueWithMeta](Schema.string)(c => DecodeResult.fromOption(c))(Some(_))
  )

/** A cookie to set, or none. */
def setCookieOpt(name: String): EndpointOutput.SetCookie[Option[CookieValueWithMeta]] =
  EndpointOutput.SetCookie(name, Codec.id(Schema.string))

/** The body as UTF-8 text, `text/plain; charset=UTF-8`. */
val stringBody: EndpointIO.Body[String, String] = stringBody(StandardCharsets.UTF_8)

/** The body as text in `charset`. */
def stringBody(charset: Charset): EndpointIO.Body[String, String] =
  EndpointIO.Body(RawBodyType.StringBody(charset), Codec.textPlain(charset))

/** The body as UTF-8 text, decoded into a `T` by a string codec, `text/plain; charset=UTF-8`. */
def plainBody[T](using codec: Codec[String, T]): EndpointIO.Body[String, T] =
  EndpointIO.Body(RawBodyType.StringBody(StandardCharsets.UTF_8), codec.mediaType(MediaType.TextPlainUtf8))

/** The body as bytes, `application/octet-stream`. */
val byteArrayBody: EndpointIO.Body[Array[Byte], Array[Byte]] =
  EndpointIO.Body(RawBodyType.ByteArrayBody, Codec.byteArray)

/**
 * The body as a `Flow.Publisher` of byte chunks, `application/octet-stream`. A request's is read as it arrives, as
 * fast as the subscriber requests, never held whole by the interpreter, and can be subscribed to once. A response's
 * is pulled one chunk at a time, only as fast as the connection takes it (a chunk is the server's until written);
 * its length is sent if the endpoint sets `Content-Length`, else the response is chunked.
 */
val publisherBody: EndpointIO.Body[Flow.Publisher[ByteBuffer], Flow.Publisher[ByteBuffer]] =
  EndpointIO.Body(RawBodyType.StreamBody(StreamKind.Publisher), Codec.stream)

/**
 * The body as an `InputStream`, `application/octet-stream`. A request's reads block until bytes arrive, so it is for
 * logic that may block (direct style, or a future run on a pool of its own), never for code running on an event
 * loop. A response's is read on the server's blocking executor, only as fast as the connection takes it, and closed
 * once sent or abandoned.
 */
val inputStreamBody: EndpointIO.Body[InputStream, InputStream] =
  EndpointIO.Body(RawBodyType.StreamBody(StreamKind.Input), Codec.stream)

/**
 * The body as [[BodyChunks]], `application/octet-stream`: chunks a function of the logic's folds as they arrive, with
 * no copy of them and nothing allocated per chunk — unlike a publisher's chunks, which are copies the subscriber may
 * keep. For requests only.
 */
val chunksBody: EndpointIO.Body[BodyChunks, BodyChunks] =
  EndpointIO.Body(RawBodyType.StreamBody(StreamKind.Chunks), Codec.stream)

/**
 * A body as a file, `application/octet-stream` (map the codec's media type for another), never held in memory. A
 * response's is sent zero-copy by Netty and Vert.x, with its length; a file that can't be read is the logic's failure,
 * a 500. A request's is written to a temporary file as it arrives (within `maxStreamedBodySize`, the disk's pace
 * slowing the client), the logic running once it is whole; the file is deleted once the request is answered.
 */
val fileBody: EndpointIO.Body[java.nio.file.Path, java.nio.file.Path] =
  EndpointIO.Body(RawBodyType.FileBody, Codec.stream)

/**
 * An `application/x-www-form-urlencoded` body, as `Map[String, String]`, `Seq[(String, String)]` or `QueryParams`.
 * A request with another `Content-Type` is refused with 415.
 */
def formBody[T](using form: FormCodec[T]): EndpointIO.Body[String, T] =
  EndpointIO.Body(
    RawBodyType.StringBody(StandardCharsets.UTF_8),
    Codec.formFields.andThen(form.fromFields).mediaType(MediaType.ApplicationXWwwFormUrlencoded)
  )

/**
 * One body in several representations, chosen by the request's `Accept` (responses) or `Content-Type` (requests):
 * `oneOfBody(jsonBody[Book], plainBody[Book])`. The first is the default.
 */
def oneOfBody[T](first: EndpointIO.Body[?, T], others: EndpointIO.Body[?, T]*): EndpointIO.OneOfBody[T] =
  EndpointIO.OneOfBody(first :: others.toList)

/**
 * A `multipart/form-data` body (RFC 7578): all parts as a [[Multipart]], or a case class deriving
 * [[MultipartCodec]] whose fields name the parts. File parts read as `java.nio.file.Path` are written to temporary
 * files, deleted once the request is answered. A request with another `Content-Type` is refused with 415.
 */
def multipartBody[T](using mc: MultipartCodec[T]): EndpointIO.Body[Multipart, T] =
  multipartBodyWithLimits[T](MultipartLimits.default)

/** A multipart body with limits on its parts. */
def multipartBodyWithLimits[T](limits: MultipartLimits)(using mc: MultipartCodec[T]): EndpointIO.Body[Multipart, T] =
  EndpointIO.Body(RawBodyType.MultipartBody(limits, mc.toDisk), mc.codec)

/** No value. */
val emptyOutput: EndpointIO[Unit] = EndpointIO.Empty

/** The response's status code, as a value the logic chooses. */
def statusCode: EndpointOutput.StatusCodeValue = EndpointOutput.StatusCodeValue()

/** A fixed status code. */
def statusCode(code: StatusCode): EndpointOutput.FixedStatusCode = EndpointOutput.FixedStatusCode(code)

/** Reads anything from the request with a function that can't fail. */
def extractFromRequest[T](f: RequestView => T): EndpointInput.ExtractFromRequest[T] =
  EndpointInput.ExtractFromRequest(r => DecodeResult.Value(f(r)))

/**
 * The certificates the client presented over TLS (mutual TLS: `Tls.withClientAuth`), its own first; empty without.
 * The client's identity is the server's to check: the chain has been verified against the trusted authorities.
 */
def clientCertificates: EndpointInput.ExtractFromRequest[List[java.security.cert.X509Certificate]] =
  extractFromRequest(_.peerCertificates)

/** The request's method, for endpoints that accept several. */
def requestMethod: EndpointInput.ExtractFromRequest[Method] = extractFromRequest(_.method)

/**
 * One of several outputs, chosen by the value written: the first variant that applies. Error outputs use it for
 * typed errors, each with its own status code.
 */
def oneOf[T](first: OneOfVariant[? <: T], others: OneOfVariant[? <: T]*): EndpointOutput.OneOf[T] =
  EndpointOutput.OneOf(first :: others.toList)

/** A variant for the values of class `T`, sent with `code`. */
def oneOfVariant[T](code: StatusCode, output: EndpointOutput[T])(using ct: ClassTag[T]): OneOfVariant[T] =
  OneOfVariant(output, Some(code), instanceOf(ct))

/** A variant for the values of class `T`, with the status code its output sets (if any). */
def oneOfVariant[T](output: EndpointOutput[T])(using ct: ClassTag[T]): OneOfVariant[T] =
  OneOfVariant(output, None, instanceOf(ct))

/** A variant for the values `matches` accepts: for types a class can't tell apart (enum cases, generic types). */
def oneOfVariantValueMatcher[T](code: StatusCode, output: EndpointOutput[T])(
    matches: PartialFunction[Any, Boolean]
): OneOfVariant[T] =
  OneOfVariant(output, Some(code), v => matches.applyOrElse(v, (_: Any) => false))

/** A variant for exactly one value, such as a case object or an enum case. */
def oneOfVariantExactValue[T](code: StatusCode, output: EndpointOutput[T])(value: T): OneOfVariant[T] =
  OneOfVariant(output, Some(code), _ == value)

/** A variant for any value: put it last, as a fallback. */
def oneOfDefaultVariant[T](output: EndpointOutput[T]): OneOfVariant[T] = OneOfVariant(output, None, _ => true)

/** A test of class membership that also works for primitive types (whose values arrive boxed). */
private def instanceOf(ct: ClassTag[?]): Any => Boolean =
  val cls: Class[?] = ct.runtimeClass match
    case c if c == classOf[Int] => classOf[java.lang.Integer]
    case c if c == classOf[Long] => classOf[java.lang.Long]
    case c if c == classOf[Double] => classOf[java.lang.Double]
    case c if c == classOf[Float] => classOf[java.lang.Float]
    case c if c == classOf[Boolean] => classOf[java.lang.Boolean]
    case c if c == classOf[Short] => classOf[java.lang.Short]
    case c if c == classOf[Byte] => classOf[java.lang.Byte]
    case c if c == classOf[Char] => classOf[java.lang.Character]
    case c if c == classOf[Unit] => classOf[scala.runtime.BoxedUnit]
    case c => c
  v => cls.isInstance(v)

/**
 * A WebSocket whose logic, in Future or direct style, relays the client's messages to its own through JDK publishers
 * (see [[WebSocketKind.Publishers]]): `endpoint.get.in("echo").out(webSocketBody[String, String])` with
 * `.serverLogicSuccess(_ => Future.successful(in => in))` echoes every text message.
 */
def webSocketBody[In, Out](using
    in: WebSocketCodec[In],
    out: WebSocketCodec[Out]
): EndpointOutput.WebSocketBody[
  In,
  Out,
  java.util.concurrent.Flow.Publisher[In] => java.util.concurrent.Flow.Publisher[Out]
] =
  EndpointOutput.WebSocketBody(WebSocketKind.publishers[In, Out], in, out)

/**
 * A `text/event-stream` response (Server-Sent Events): the logic's `Flow.Publisher` of [[ServerSentEvent]]s, each
 * written as it comes, one asked for at a time as the connection takes them; while no event has gone out for
 * `keepAlive`, a comment line keeps the connection from being closed as idle (`Duration.Inf`: never). Sent with
 * `Cache-Control: no-cache`, chunked; the publisher completing ends the response, failing cuts it. A client reads
 * the events back as they arrive, as its subscriber asks for them.
 */
def sseBody(
    keepAlive: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration(15, "s")
): EndpointOutput[Flow.Publisher[ServerSentEvent]] =
  val nanos = keepAliveNanos(keepAlive)
  eventStreamOutput(StreamKind.Publisher, rapier.flow.EventStream(_, nanos), rapier.flow.EventsFromBytes(_))

/**
 * Whether `d` may be a timeout or a period: longer than zero, or `Duration.Inf` for none, the rule of every option
 * that takes one. Read off the duration rather than by comparing it with `Duration.Zero`, a comparison that loads a
 * dozen of Scala's number classes when a server starts.
 */
private[rapier] def isTimeout(d: scala.concurrent.duration.Duration): Boolean = d match
  case f: scala.concurrent.duration.FiniteDuration => f.length > 0
  case _ => d eq scala.concurrent.duration.Duration.Inf

/** A timeout or period in nanoseconds, as a server arms it: 0 for none (`Duration.Inf`, or one [[isTimeout]] refuses). */
private[rapier] def timeoutNanos(d: scala.concurrent.duration.Duration): Long = d match
  case f: scala.concurrent.duration.FiniteDuration if f.length > 0 => f.toNanos
  case _ => 0L

/** A keep-alive period in nanoseconds, 0 for none (`Duration.Inf`); refused unless positive. */
private[rapier] def keepAliveNanos(keepAlive: scala.concurrent.duration.Duration): Long =
  require(isTimeout(keepAlive), s"keepAlive must be positive, or Duration.Inf for none: $keepAlive")
  timeoutNanos(keepAlive)

/**
 * A `text/event-stream` output of events `E`, written as the bytes `encode` makes of them, a body of stream kind
 * `kind`, with `Cache-Control: no-cache`: what every stream library's Server-Sent Events output is.
 */
private[rapier] def eventStreamOutput[E, B](kind: StreamKind[B], encode: E => B, decode: B => E): EndpointOutput[E] =
  val body = EndpointIO.Body(RawBodyType.StreamBody(kind), Codec.id(Schema.binary[B], MediaType.TextEventStream))
  EndpointOutput.Mapped(
    EndpointIO.FixedHeader(HeaderNames.CacheControl, "no-cache").and(body),
    (b: B) => DecodeResult.Value(decode(b)),
    encode
  )
