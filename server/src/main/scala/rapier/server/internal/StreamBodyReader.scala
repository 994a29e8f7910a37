package rapier.server.internal

import rapier.*
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
    case reader: StreamReader[?] => reader.read(_)
    case other =>
      throw IllegalArgumentException(s"no reader for bodies as ${other.name}: its module provides one (a StreamReader)")

  /** The body's stream, decoded by the input's codec; or `Failed`. */
  def open(request: ServerRequest): Any = Failed.unwrap(ref, codec.decode(stream(request.bodySource)))
