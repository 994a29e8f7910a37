package rapier.server.internal

import rapier.*
import rapier.model.{HeaderNames, MediaType, Text}
import rapier.server.spi.ServerRequest
import rapier.server.interceptor.{InputRef, InputSource}

import java.nio.charset.Charset

/**
 * Decodes the body from its bytes: as text in the charset the request declares (or the endpoint's), or as bytes.
 * A body whose codec has a specific media type (a form, JSON) must arrive with that `Content-Type`.
 */
private[server] trait BodyReading:
  def ref: InputRef

  /** The value of the body, or `Failed`. */
  def decode(request: ServerRequest, bytes: Array[Byte]): Any

private[server] final class BodyDecoder(raw: RawBodyType[?], codec: Codec[Any, Any], files: TempFiles)
    extends BodyReading:
  val ref: InputRef = InputRef(InputSource.Body, "")
  private val contentTypeRule = RequiredContentType(codec.mediaType)

  /** The media type a request must declare, or null for text and bytes, which any `Content-Type` may carry. */
  val required: MediaType | Null = contentTypeRule.required
  val mediaType: MediaType = codec.mediaType
  private val invalidText = DecodeResult.Error("text in the declared charset")
  private val unknownCharset =
    Failed(InputRef(InputSource.ContentType, ""), DecodeResult.Error("a charset the server can read"))

  def decode(request: ServerRequest, bytes: Array[Byte]): Any =
    val contentType = request.headerOrNull(HeaderNames.ContentType)
    val wrongType = contentTypeRule.failureOrNull(contentType)
    if wrongType != null then wrongType
    else
      raw match
        case RawBodyType.ByteArrayBody => Failed.unwrap(ref, codec.decode(bytes))
        case RawBodyType.MultipartBody(limits, toDisk) =>
          MultipartReader.readWhole(request, contentType, bytes, limits, toDisk, files) match
            case failure: DecodeResult.Failure => Failed(ref, failure)
            case parts: Multipart => Failed.unwrap(ref, codec.decode(parts))
        case _: RawBodyType.StreamBody[?] | RawBodyType.FileBody =>
          throw IllegalStateException("a stream or file body is read by StreamBodyReader, never whole")
        case RawBodyType.StringBody(defaultCharset) =>
          Text.charsetOf(contentType, defaultCharset) match
            case null => unknownCharset
            case charset: Charset =>
              Text.decodeOrNull(bytes, charset) match
                case null => Failed(ref, invalidText)
                case s: String => Failed.unwrap(ref, codec.decode(s))

/**
 * A body of several representations: read by the variant whose media type the `Content-Type` names; without a
 * `Content-Type`, by the first if it is text or bytes.
 */
private[server] final class NegotiatedBodyDecoder(variants: List[BodyDecoder]) extends BodyReading:
  val ref: InputRef = InputRef(InputSource.Body, "")
  private val decoders = variants.toArray
  private val unsupported = Failed(
    InputRef(InputSource.ContentType, ""),
    DecodeResult.Mismatch(variants.map(_.mediaType.copy(charset = None).render).distinct.mkString(" or "))
  )

  def decode(request: ServerRequest, bytes: Array[Byte]): Any =
    val contentType = request.headerOrNull(HeaderNames.ContentType)
    if contentType == null then
      if decoders(0).required == null then decoders(0).decode(request, bytes) else unsupported
    else
      var i = 0
      while i < decoders.length do
        if decoders(i).mediaType.matchesContentType(contentType.nn) then return decoders(i).decode(request, bytes)
        i += 1
      unsupported
