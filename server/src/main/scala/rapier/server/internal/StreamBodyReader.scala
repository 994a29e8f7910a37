package rapier.server.internal

import rapier.*
import rapier.model.HeaderNames

import java.nio.file.Path
import java.util.concurrent.Executor
import rapier.server.interceptor.{InputRef, InputSource}
import rapier.server.spi.{BodySource, ServerRequest, StreamReader}

/**
 * Reads a body as it arrives: as a stream of the input's kind, made over the request's [[BodySource]] before the
 * logic runs, which pulls from it only as the logic reads; or into a file, or into a multipart body's parts, before
 * the logic runs, never held whole. Built once per endpoint, when the server starts; a kind no reader is known for
 * fails there.
 */
private[server] final class StreamBodyReader(
    raw: RawBodyType[?],
    codec: Codec[Any, Any],
    blocking: Executor,
    files: TempFiles
):
  val ref: InputRef = InputRef(InputSource.Body, "")

  private val stream: BodySource => Any = raw match
    case RawBodyType.StreamBody(kind) => StreamBodyReader.reader(kind)
    case _ => null

  // A stream of a specific media type (a JSON array, NDJSON) must arrive with that Content-Type; bytes with any.
  private val contentType = RequiredContentType(codec.mediaType)

  /**
   * The body's stream, decoded by the input's codec; or `Failed` (before anything is read). A body read into a file
   * ([[RawBodyType.FileBody]]) or split into parts ([[RawBodyType.MultipartBody]]) is a
   * [[StreamBodyReader.Pending]]: its value once the body has arrived.
   */
  def open(request: ServerRequest): Any =
    val header = request.headerOrNull(HeaderNames.ContentType)
    val wrongType = contentType.failureOrNull(header)
    if wrongType != null then wrongType
    else if stream != null then Failed.unwrap(ref, codec.decode(stream(request.readableBodySource)))
    else
      raw match
        case RawBodyType.MultipartBody(limits, toDisk) => multipart(request, header, limits, toDisk)
        case _ => toFile(request)

  /** Writes the body to a temporary file, deleted once the request is answered. */
  private def toFile(request: ServerRequest): StreamBodyReader.Pending =
    val file = files.create("rapier-body-", ".tmp")
    request.keepFile(file)
    StreamBodyReader.Pending(done =>
      val decoded = (r: Either[Throwable, Path]) => done(r.map(path => Failed.unwrap(ref, codec.decode(path))))
      BodyToFile(request.readableBodySource, file, blocking, files, decoded).start()
    )

  /** Splits a multipart body into its parts as it arrives, file parts written to temporary files. */
  private def multipart(
      request: ServerRequest,
      header: String | Null,
      limits: MultipartLimits,
      toDisk: (String, Option[String]) => Boolean
  ): Any =
    PartHeaders.boundaryOrNull(header) match
      case null => Failed(ref, MultipartReader.NoBoundary)
      case boundary: Array[Byte] =>
        StreamBodyReader.Pending(done =>
          val parts: Either[Throwable, Multipart | DecodeResult.Failure] => Unit = r =>
            done(r.map {
              case m: Multipart => Failed.unwrap(ref, codec.decode(m))
              case f: DecodeResult.Failure => Failed(ref, f)
            })
          MultipartReader(
            request.readableBodySource,
            boundary,
            limits,
            toDisk,
            blocking,
            files,
            request.keepFile,
            parts
          )
            .start()
        )

private[rapier] object StreamBodyReader:
  /** How a body's source becomes a stream of `kind`: the same for a server's request and a client's response. */
  def reader(kind: StreamKind[?]): BodySource => Any = kind match
    case StreamKind.Publisher => BodyPublisher(_)
    case StreamKind.Input => BodyInputStream(_)
    case StreamKind.Chunks => ChunkFold(_)
    case reader: StreamReader[?] => reader.read(_)
    case other =>
      throw IllegalArgumentException(s"no reader for bodies as ${other.name}: its module provides one (a StreamReader)")

  /** A body value that a callback delivers once the body has arrived (`register` as in `Monad.async`). */
  final class Pending(val register: (Either[Throwable, Any] => Unit) => Unit)
