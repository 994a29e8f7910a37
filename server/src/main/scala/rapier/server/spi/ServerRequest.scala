package rapier.server.spi

import rapier.model.{Header, Method, PercentEncoding, QueryParams, RequestView}
import rapier.server.Rejection
import rapier.server.internal.RequestTarget

import java.net.InetSocketAddress

/**
 * The request side of the backend SPI: a thin view over the backend's own request object.
 *
 * A backend implements the abstract members; they should compute nothing until asked, since the interpreter asks
 * only for what the matched endpoint reads. The body comes one of two ways: whole, read by the backend before it
 * hands the request over ([[bodyOrNull]]), or on demand, pulled through a [[BodySource]] ([[bodySource]]).
 *
 * The class also holds the interpreter's state for the request — where the path lies in the target, what routing
 * captured, the query once parsed — so that serving a request costs one object here rather than a view and a
 * context. An instance serves one request at a time. It is the [[rapier.model.RequestView]] that `extractFromRequest` inputs and
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

  /**
   * The whole body, when the backend read it before handing the request over (Netty's and Vert.x's backends do, into
   * one array sized from Content-Length); null when it is read on demand, through [[bodySource]]. An empty body is
   * an empty array, never null, for a backend that reads bodies first.
   */
  def bodyOrNull: Array[Byte] | Null

  /**
   * The body as it arrives, read on demand: pulled whole by the interpreter for endpoints that read bytes, text or
   * forms when [[bodyOrNull]] is null, and chunk by chunk by streaming inputs. Asked for at most once per request. By
   * default, the body [[bodyOrNull]] holds, in one chunk; a backend that reads bodies on demand overrides it.
   */
  def bodySource: BodySource = bodyOrNull match
    case bytes: Array[Byte] => BodySource.of(bytes)
    case null => throw UnsupportedOperationException(s"${getClass.getName} has neither a body read nor a BodySource")

  /** Set by request decoding (`Compression`): what the body passes through before the endpoint reads it. */
  private[server] var bodyDecoder: (BodySource => BodySource) | Null = null

  /** The body in memory as the endpoint reads it: null when it must be decoded first, or read on demand. */
  private[server] final def readableBodyOrNull: Array[Byte] | Null = if bodyDecoder == null then bodyOrNull else null

  /** The body on demand as the endpoint reads it: decoded when request decoding asks. */
  private[server] final def readableBodySource: BodySource =
    if bodyDecoder == null then bodySource else bodyDecoder.nn(bodySource)

  // The interpreter's state. Capture 0, by far the most common, is packed into a long: no array for it.
  private[server] var pathStart: Int = 0
  private[server] var pathEnd: Int = 0
  private var firstCapture: Long = 0L
  private var moreCaptures: Array[Int] | Null = null
  private var query: QueryParams | Null = null
  private var queryParsed = false
  private[server] var rejection: Rejection = Rejection.NotFound

  /**
   * Files written for this request (uploads), deleted once it is answered. The body's reader adds to it on any
   * thread, but always before it hands the body's value over, which orders it before the answer's read.
   */
  private[server] var temporaryFiles: List[java.nio.file.Path] = Nil

  /** A context the logic runs in, set by an interceptor (see [[rapier.server.LogicContext]]); null for none. */
  var logicContext: rapier.server.LogicContext | Null = null

  /**
   * What an interceptor adds to this request's line in the request log (`trace_id=…`), as its `toString`, made only
   * when the line is written; null for none.
   */
  var logNote: AnyRef | Null = null

  // What to undo if the request's effect is cancelled; null once the runner has said so
  private var cancelHooks: List[() => Unit] | Null = Nil

  /**
   * Runs `hook` if this request's effect is cancelled (its client went away), once the effect has stopped: what
   * the interpreter must let go of even when the effect was stopped before it could enter a region of its own
   * (an `IO` cancelled before its fiber started). Runs it at once if that has happened already.
   */
  def whenCancelled(hook: () => Unit): Unit =
    val run = synchronized {
      if cancelHooks == null then true
      else
        cancelHooks = hook :: cancelHooks.nn
        false
    }
    if run then hook()

  /** For a [[Runner]] that cancelled this request's effect, once the effect has stopped: runs its hooks, once. */
  def cancelled(): Unit =
    val hooks = synchronized {
      val h = cancelHooks
      cancelHooks = null
      h
    }
    if hooks != null then hooks.nn.foreach(_())

  /** Keeps `file` until the request is answered, then deletes it. */
  private[server] def keepFile(file: java.nio.file.Path): Unit = temporaryFiles = file :: temporaryFiles

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
