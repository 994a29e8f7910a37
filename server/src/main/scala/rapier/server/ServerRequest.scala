package rapier.server

import rapier.model.{Header, Method, PercentEncoding, QueryParams, RequestView}

import java.net.InetSocketAddress

/**
 * The request side of the backend SPI: a thin view over the backend's own request object.
 *
 * A backend implements the abstract members; they should compute nothing until asked, since the interpreter asks
 * only for what the matched endpoint reads. The body is read through the backend's [[RequestBody]].
 *
 * The class also holds the interpreter's state for the request — where the path lies in the target, what routing
 * captured, the query once parsed — so that serving a request costs one object here rather than a view and a
 * context. An instance serves one request at a time. It is the [[RequestView]] that `extractFromRequest` inputs and
 * interceptors see.
 */
abstract class ServerRequest extends RequestView:
  /**
   * The method exactly as received. Backends should hand over the shared constants for standard methods (their
   * names are interned literals): routing compares by reference first.
   */
  def method: Method

  /** The request target exactly as received (RFC 9112 §3.2): usually `/path?query`, still percent-encoded. */
  def uri: String

  /** The protocol version, e.g. `HTTP/1.1`. */
  def protocol: String

  /** The first value of a header, or null when absent. Names are case-insensitive. */
  def headerOrNull(name: String): String | Null

  /** Every value of a header, in order; empty when absent. */
  def headerValues(name: String): List[String]

  /** All headers, in order. */
  def headers: List[Header]

  /** The client's address, or null when unknown. */
  def remoteAddressOrNull: InetSocketAddress | Null

  // The interpreter's state. Capture 0, by far the most common, is packed into a long: no array for it.
  private[server] var pathStart: Int = 0
  private[server] var pathEnd: Int = 0
  private var firstCapture: Long = 0L
  private var moreCaptures: Array[Int] | Null = null
  private var query: QueryParams | Null = null
  private var queryParsed = false
  private[server] var rejection: Rejection = Rejection.NotFound

  /** Files written for this request (multipart uploads), deleted once it is answered. */
  private[server] var temporaryFiles: List[java.nio.file.Path] = Nil

  /** Starts serving: where the path lies, and no state from an earlier request. */
  private[server] def begin(start: Int, end: Int): Unit =
    pathStart = start
    pathEnd = end
    query = null
    queryParsed = false

  /** Records the range of capture `k`; `slots` is the most captures any endpoint has. */
  private[server] def capture(k: Int, start: Int, end: Int, slots: Int): Unit =
    if k == 0 then firstCapture = (start.toLong << 32) | (end.toLong & 0xffffffffL)
    else
      if moreCaptures == null || moreCaptures.nn.length < 2 * (slots - 1) then
        moreCaptures = new Array[Int](2 * (slots - 1))
      moreCaptures.nn(2 * (k - 1)) = start
      moreCaptures.nn(2 * (k - 1) + 1) = end

  private[server] def captureStart(k: Int): Int =
    if k == 0 then (firstCapture >>> 32).toInt else moreCaptures.nn(2 * (k - 1))

  private[server] def captureEnd(k: Int): Int =
    if k == 0 then firstCapture.toInt else moreCaptures.nn(2 * (k - 1) + 1)

  /** The query parameters, parsed on first use; null when the query string is malformed. */
  private[server] def queryOrNull: QueryParams | Null =
    if !queryParsed then
      val target = uri
      query =
        if pathEnd < target.length && target.charAt(pathEnd) == '?' then
          val end = target.indexOf('#', pathEnd) match
            case -1 => target.length
            case i => i
          QueryParams.parseOrNull(target, pathEnd + 1, end)
        else QueryParams.empty
      queryParsed = true
    query

  /**
   * The text of capture `k`, percent-decoded; null when its encoding is invalid or the segment is unsafe (see
   * [[RequestTarget.isSafeSegment]]).
   */
  private[server] def captureOrNull(k: Int, encodedSlash: Boolean = false): String | Null =
    PercentEncoding.decodeOrNull(uri, captureStart(k), captureEnd(k), plusIsSpace = false) match
      case s: String if RequestTarget.isSafeSegment(s, encodedSlash) => s
      case _ => null

  /** The segments of capture `k` (the rest of the path), each percent-decoded; null when one is invalid or unsafe. */
  private[server] def segmentsOrNull(k: Int): List[String] | Null =
    RequestTarget.segmentsOrNull(uri, captureStart(k), captureEnd(k))

  /** The path's segments, percent-decoded; empty when one is invalid or unsafe (an encoded `/`, a `..`). */
  final def pathSegments: List[String] =
    val first = if pathStart < pathEnd && uri.charAt(pathStart) == '/' then pathStart + 1 else pathStart
    RequestTarget.segmentsOrNull(uri, first, pathEnd) match
      case null => Nil
      case segments: List[String] => segments

  final def queryParams: QueryParams = queryOrNull match
    case null => QueryParams.empty
    case q: QueryParams => q

  final def header(name: String): Option[String] = Option(headerOrNull(name))
  final def remoteAddress: Option[InetSocketAddress] = Option(remoteAddressOrNull)

/** Where the path of a request target lies, and how to split it. */
private[server] object RequestTarget:
  /**
   * The index where the path starts: 0 for origin-form (`/a?b`), after the authority for absolute-form
   * (`http://host/a?b`); -1 for other forms (`*`, authority-form), which no endpoint serves.
   */
  def pathStart(target: String): Int =
    if target.length > 0 && target.charAt(0) == '/' then 0
    else
      val scheme = target.indexOf("://")
      if scheme <= 0 || !target.regionMatches(true, 0, "http", 0, 4) then -1
      else
        var i = scheme + 3
        while i < target.length && target.charAt(i) != '/' && target.charAt(i) != '?' && target.charAt(i) != '#' do
          i += 1
        i

  /** The index where the path ends: at `?`, `#` or the end. */
  def pathEnd(target: String, from: Int): Int =
    var i = from
    while i < target.length do
      val c = target.charAt(i)
      if c == '?' || c == '#' then return i
      i += 1
    i

  /**
   * Whether a decoded path segment is one a handler may see: not `.` or `..` (whatever their encoding), and without
   * `/` (encoded as `%2F`) or control characters (encoded NUL, CR, LF, …). Such segments serve path traversal and
   * header or log injection, and no endpoint needs them.
   */
  def isSafeSegment(s: String, encodedSlash: Boolean = false): Boolean =
    if s == "." || s == ".." then false
    else
      var i = 0
      while i < s.length do
        val c = s.charAt(i)
        if (c == '/' && !encodedSlash) || c < 0x20 || c == 0x7f then return false
        i += 1
      true

  /**
   * The `/`-separated segments of `target[from, to)`, each percent-decoded; null when one is invalid or unsafe.
   * `from` is the first character of the first segment; an empty range has no segments.
   */
  def segmentsOrNull(target: String, from: Int, to: Int): List[String] | Null =
    if from >= to then Nil
    else
      val result = List.newBuilder[String]
      var i = from
      var ok = true
      while ok && i <= to do
        var end = target.indexOf('/', i)
        if end < 0 || end > to then end = to
        PercentEncoding.decodeOrNull(target, i, end, plusIsSpace = false) match
          case s: String if isSafeSegment(s) => result += s
          case _ => ok = false
        i = end + 1
      if ok then result.result() else null

/**
 * The body side of the backend SPI: how the interpreter gets a request's body, at most once, and only when the
 * matched endpoint reads one (after its security logic has run).
 */
trait RequestBody[F[_]]:
  /**
   * The body, if the backend already holds all of it; null otherwise. Lets the interpreter continue without a
   * round through `F`.
   */
  def bytesIfRead(request: ServerRequest): Array[Byte] | Null

  /** Reads the whole body. Fails with [[BodyTooLargeException]] past the backend's limit. */
  def bytes(request: ServerRequest): F[Array[Byte]]

/** The body is larger than the server accepts; the interpreter answers 413. */
final class BodyTooLargeException(val limit: Long)
    extends RuntimeException(s"the request body is larger than the limit of $limit bytes", null, false, false)
