package rapier

import java.nio.charset.Charset

/** How a body is held before its codec decodes it, or after its codec encodes it. */
sealed trait RawBodyType[R]

object RawBodyType:
  /** Text in a charset. */
  final case class StringBody(charset: Charset) extends RawBodyType[String]

  /** Bytes as they are. */
  case object ByteArrayBody extends RawBodyType[Array[Byte]]

  /**
   * A `multipart/form-data` body (RFC 7578), split into its parts as it arrives. `toDisk` says which parts are written
   * to temporary files as their bytes come (deleted once the request is answered) rather than kept in memory.
   */
  final case class MultipartBody(limits: MultipartLimits, toDisk: (String, Option[String]) => Boolean)
      extends RawBodyType[Multipart]

  /**
   * The body as it arrives, chunk by chunk, as a stream of the given kind that the logic reads at its own pace. The
   * body is never held whole by the interpreter; a backend that reads bodies before dispatch hands the stream what it
   * read, within its body limit.
   */
  final case class StreamBody[S](kind: StreamKind[S]) extends RawBodyType[S]

  /** A file, sent from disk as it is (zero-copy where the backend can), never read into memory. */
  case object FileBody extends RawBodyType[java.nio.file.Path]
