package rapier.server.internal

import rapier.*
import rapier.model.{HeaderNames, MediaType}
import rapier.server.interceptor.{InputRef, InputSource}
import rapier.server.spi.{BodySource, ServerRequest, StreamReader}

/**
 * Reads a body as a stream of the input's kind: the stream is made over the request's [[BodySource]] before the logic
 * runs, and pulls from it only as the logic reads. Built once per endpoint, when the server starts; a kind no reader
 * is known for fails there.
 */
private[server] final class StreamBodyReader(kind: StreamKind[?], codec: Codec[Any, Any]):
  val ref: InputRef = InputRef(InputSource.Body, "")

  private val stream: BodySource => Any = kind match
    case StreamKind.Publisher => BodyPublisher(_)
    case StreamKind.Input => BodyInputStream(_)
    case StreamKind.Chunks => ChunkFold(_)
    case reader: StreamReader[?] => reader.read(_)
    case other =>
      throw IllegalArgumentException(s"no reader for bodies as ${other.name}: its module provides one (a StreamReader)")

  private val contentTypeRef = InputRef(InputSource.ContentType, "")

  // A stream of a specific media type (a JSON array, NDJSON) must arrive with that Content-Type; bytes with any.
  private val required: MediaType | Null =
    val m = codec.mediaType
    if m.isText || m == MediaType.ApplicationOctetStream then null else m
  private val wrongType =
    DecodeResult.Mismatch(if required == null then "" else required.nn.copy(charset = None).render)

  /** The body's stream, decoded by the input's codec; or `Failed` (before anything is read). */
  def open(request: ServerRequest): Any =
    val contentType = request.headerOrNull(HeaderNames.ContentType)
    if required != null && (contentType == null || !required.nn.matchesContentType(contentType)) then
      Failed(contentTypeRef, wrongType)
    else Failed.unwrap(ref, codec.decode(stream(request.bodySource)))
