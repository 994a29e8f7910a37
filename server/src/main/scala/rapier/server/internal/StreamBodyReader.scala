package rapier.server.internal

import rapier.*
import rapier.model.HeaderNames

import java.util.concurrent.Executor
import rapier.server.interceptor.{InputRef, InputSource}
import rapier.server.spi.{BodySource, ServerRequest, StreamReader}

/**
 * Reads a body as a stream of the input's kind: the stream is made over the request's [[BodySource]] before the logic
 * runs, and pulls from it only as the logic reads. Built once per endpoint, when the server starts; a kind no reader
 * is known for fails there.
 */
private[server] final class StreamBodyReader(raw: RawBodyType[?], codec: Codec[Any, Any], blocking: Executor):
  val ref: InputRef = InputRef(InputSource.Body, "")

  private val stream: BodySource => Any = raw match
    case RawBodyType.StreamBody(kind) => reader(kind)
    case _ => null

  private def reader(kind: StreamKind[?]): BodySource => Any = kind match
    case StreamKind.Publisher => BodyPublisher(_)
    case StreamKind.Input => BodyInputStream(_)
    case StreamKind.Chunks => ChunkFold(_)
    case reader: StreamReader[?] => reader.read(_)
    case other =>
      throw IllegalArgumentException(s"no reader for bodies as ${other.name}: its module provides one (a StreamReader)")

  // A stream of a specific media type (a JSON array, NDJSON) must arrive with that Content-Type; bytes with any.
  private val contentType = RequiredContentType(codec.mediaType)

  /**
   * The body's stream, decoded by the input's codec; or `Failed` (before anything is read). A body read into a file
   * ([[RawBodyType.FileBody]]) is a [[StreamBodyReader.Pending]]: the file once the body is whole.
   */
  def open(request: ServerRequest): Any =
    val wrongType = contentType.failureOrNull(request.headerOrNull(HeaderNames.ContentType))
    if wrongType != null then wrongType
    else if stream == null then toFile(request)
    else Failed.unwrap(ref, codec.decode(stream(request.bodySource)))

  /** Writes the body to a temporary file, deleted once the request is answered. */
  private def toFile(request: ServerRequest): StreamBodyReader.Pending =
    val file = java.nio.file.Files.createTempFile("rapier-body-", ".tmp")
    request.temporaryFiles = file :: request.temporaryFiles
    StreamBodyReader.Pending(done =>
      BodyToFile(request.bodySource, file, blocking, r => done(r.map(path => Failed.unwrap(ref, codec.decode(path)))))
        .start()
    )

private[server] object StreamBodyReader:
  /** A body value that a callback delivers once the body has arrived (`register` as in `Monad.async`). */
  final class Pending(val register: (Either[Throwable, Any] => Unit) => Unit)
