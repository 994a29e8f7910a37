package rapier.server

import rapier.model.{Header, Method, PercentEncoding, QueryParams, RequestView}

import java.net.InetSocketAddress

/**
 * One request on its way through the interpreter: the backend's view of it, where its path lies in the request
 * target, what routing captured, and the query once (and if) something parsed it.
 *
 * It is also the [[RequestView]] that `extractFromRequest` inputs see, so the escape hatch costs no extra object.
 */
final class RequestContext private[server] (
    val request: ServerRequest,
    private[server] val pathStart: Int,
    private[server] val pathEnd: Int,
    private[server] val captures: Array[Int]
) extends RequestView:
  private var query: QueryParams | Null = null
  private var queryParsed = false
  private[server] var rejection: Rejection = Rejection.NotFound

  /** The query parameters, parsed on first use; null when the query string is malformed. */
  private[server] def queryOrNull: QueryParams | Null =
    if !queryParsed then
      val target = request.uri
      query =
        if pathEnd < target.length && target.charAt(pathEnd) == '?' then
          val end = target.indexOf('#', pathEnd) match
            case -1 => target.length
            case i => i
          QueryParams.parseOrNull(target, pathEnd + 1, end)
        else QueryParams.empty
      queryParsed = true
    query

  /** The raw text of capture `k`, percent-decoded; null when its encoding is invalid. */
  private[server] def captureOrNull(k: Int): String | Null =
    PercentEncoding.decodeOrNull(request.uri, captures(2 * k), captures(2 * k + 1), plusIsSpace = false)

  /** The segments of capture `k` (the rest of the path), each percent-decoded; null when an encoding is invalid. */
  private[server] def segmentsOrNull(k: Int): List[String] | Null =
    RequestTarget.segmentsOrNull(request.uri, captures(2 * k), captures(2 * k + 1))

  def method: Method = Method.unsafe(request.method)
  def uri: String = request.uri
  def pathSegments: List[String] =
    val first = if pathStart < pathEnd && request.uri.charAt(pathStart) == '/' then pathStart + 1 else pathStart
    RequestTarget.segmentsOrNull(request.uri, first, pathEnd) match
      case null => Nil
      case segments: List[String] => segments
  def queryParams: QueryParams = queryOrNull match
    case null => QueryParams.empty
    case q: QueryParams => q
  def header(name: String): Option[String] = Option(request.headerOrNull(name))
  def headerValues(name: String): List[String] = request.headerValues(name)
  def headers: List[Header] = request.headers
  def protocol: String = request.protocol
  def remoteAddress: Option[InetSocketAddress] = Option(request.remoteAddress)

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
   * The `/`-separated segments of `target[from, to)`, each percent-decoded; null when one is invalid. `from` is the
   * first character of the first segment; an empty range has no segments.
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
          case null => ok = false
          case s: String => result += s
        i = end + 1
      if ok then result.result() else null
