package rapier.server.compression

/**
 * Response compression: bodies gzip- or deflate-encoded when the request's `Accept-Encoding` asks for it (RFC 9110
 * §12.5.3, q-values, `*` and `identity;q=0` included), for media types that compress and bodies of at least `minSize`
 * bytes. Set with `ServerOptions.withCompression`.
 *
 * Bodies in memory are compressed whole; streamed bodies as they stream, each chunk flushed so that what the logic sent
 * reaches the client at once (SSE aside: event streams are not compressed by default). Never compressed: a body that
 * already has a `Content-Encoding`, a partial answer (206), a file body (sent zero-copy, with its ranges), an answer
 * without a body. Every answer whose encoding depended on `Accept-Encoding` says `Vary: Accept-Encoding`, and a strong
 * `ETag` of a compressed answer is made weak (the bytes differ from the identity representation's).
 *
 * @param minSize
 *   bodies in memory below this are sent as they are (compressing a few hundred bytes costs more than it saves), unless
 *   the request refuses `identity`
 * @param level
 *   the deflate level, 1 (fastest) to 9 (smallest)
 * @param compressible
 *   whether a media type (`type/subtype`, lower case, without parameters) is worth compressing
 */
final case class Compression(
    minSize: Int = 1024,
    level: Int = 6,
    compressible: String => Boolean = Compression.textual,
    requestLimit: Option[Long] = None
):
  require(minSize >= 0, "compression minSize must not be negative")
  require(level >= 1 && level <= 9, s"compression level is 1 to 9, not $level")
  require(requestLimit.forall(_ > 0), "compression requestLimit must be positive")

  def withMinSize(bytes: Int): Compression = copy(minSize = bytes)
  def withLevel(l: Int): Compression = copy(level = l)

  /**
   * Request bodies with `Content-Encoding: gzip` or `deflate` decoded before their endpoint reads them, up to
   * `maxDecoded` bytes (past it a 413: a small body that decodes to a huge one is refused, not held); any other coding
   * is a 415 naming the ones accepted. Without it, a body is read as it came.
   */
  def withRequestDecoding(maxDecoded: Long): Compression = copy(requestLimit = Some(maxDecoded))

object Compression:
  val default: Compression = Compression()

  /**
   * Text, JSON, XML, JavaScript, YAML and SVG: what compresses well. Not `text/event-stream`, whose events a client
   * waits for one by one, nor already compressed formats (images, video, archives).
   */
  def textual(mediaType: String): Boolean = (mediaType.startsWith("text/") && mediaType != "text/event-stream") ||
    mediaType.endsWith("+json") || mediaType.endsWith("+xml") ||
    Textual.contains(mediaType)

  private val Textual = Set(
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-ndjson",
    "application/yaml",
    "application/graphql-response+json",
    "image/svg+xml"
  )
