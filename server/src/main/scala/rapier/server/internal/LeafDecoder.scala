package rapier.server.internal

import rapier.*
import rapier.codec.{OptionalValue, RangeDecoder, SingleValue}
import rapier.model.{Cookie, HeaderNames}
import rapier.server.spi.ServerRequest
import rapier.server.interceptor.{InputFailure, InputRef}

/**
 * What a decoder returns instead of a value when inputs fail: a class no input value can be an instance of, so a
 * success needs no wrapper and a failure costs one type test.
 */
private[server] final class Failed(val failures: List[InputFailure])

private[server] object Failed:
  def apply(ref: InputRef, failure: DecodeResult.Failure): Failed = new Failed(InputFailure(ref, failure) :: Nil)

  /** The value of a decode result, or a `Failed` naming the input. */
  inline def unwrap(ref: InputRef, result: DecodeResult[Any]): Any = result match
    case DecodeResult.Value(v) => v
    case failure: DecodeResult.Failure => Failed(ref, failure)

/** Reads and decodes one basic input of a request. Built once per endpoint, when the server starts. */
private[server] abstract class LeafDecoder(val ref: InputRef):
  /** The value, or `Failed`. */
  def decode(request: ServerRequest): Any

private[server] object LeafDecoder:
  private val malformedQuery = DecodeResult.Error("a query string of name=value pairs, percent-encoded as UTF-8")
  private val malformedPath =
    DecodeResult.Error(
      "a path segment in percent-encoded UTF-8, not '.' or '..', without encoded '/', '\\' or control characters"
    )

  final class PathSegment(ref: InputRef, k: Int, codec: Codec[String, Any], encodedSlash: Boolean = false)
      extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.captureOrNull(k, encodedSlash) match
      case null => Failed(ref, malformedPath)
      case s: String => Failed.unwrap(ref, codec.decode(s))

  /**
   * A path segment decoded where it lies in the request target, when it needs no percent-decoding: for numeric
   * ids, no string is made and no `DecodeResult` wraps the value.
   */
  final class PathSegmentInPlace(ref: InputRef, k: Int, codec: Codec[String, Any] & RangeDecoder)
      extends LeafDecoder(ref):
    private val copying = PathSegment(ref, k, codec)
    private val schema = codec.schema

    def decode(request: ServerRequest): Any =
      val target = request.uri
      val from = request.captureStart(k)
      val to = request.captureEnd(k)
      if escaped(target, from, to) then copying.decode(request)
      else
        codec.rawDecodeRange(target, from, to) match
          case failure: DecodeResult.Failure => Failed(ref, failure)
          case v if !schema.hasRules => v
          case v =>
            val errors = schema.check(v)
            if errors.isEmpty then v else Failed(ref, DecodeResult.InvalidValue(errors))

  private def escaped(s: String, from: Int, to: Int): Boolean =
    var i = from
    while i < to do
      if s.charAt(i) == '%' then return true
      i += 1
    false

  /** Picks the decoder for a path segment: in place for codecs that can decode a range. */
  def pathSegment(ref: InputRef, k: Int, codec: Codec[String, Any], encodedSlash: Boolean): LeafDecoder = codec match
    case inPlace: RangeDecoder => PathSegmentInPlace(ref, k, inPlace.asInstanceOf[Codec[String, Any] & RangeDecoder])
    case _ => PathSegment(ref, k, codec, encodedSlash)

  final class PathRest(ref: InputRef, k: Int, codec: Codec[List[String], Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.segmentsOrNull(k) match
      case null => Failed(ref, malformedPath)
      case segments: List[String] => Failed.unwrap(ref, codec.decode(segments))

  /** A query parameter: exactly one value, read without building a list. */
  final class QuerySingle(ref: InputRef, name: String, inner: Codec[String, Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.queryOrNull match
      case null => Failed(ref, malformedQuery)
      case q: rapier.model.QueryParams =>
        q.firstOrNull(name) match
          case null => Failed(ref, DecodeResult.Missing)
          case v: String =>
            val n = q.count(name)
            if n > 1 then Failed(ref, DecodeResult.Multiple(n)) else Failed.unwrap(ref, inner.decode(v))

  /** A query parameter: at most one value. */
  final class QueryOptional(ref: InputRef, name: String, inner: Codec[String, Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.queryOrNull match
      case null => Failed(ref, malformedQuery)
      case q: rapier.model.QueryParams =>
        q.firstOrNull(name) match
          case null => None
          case v: String =>
            val n = q.count(name)
            if n > 1 then Failed(ref, DecodeResult.Multiple(n))
            else
              inner.decode(v) match
                case DecodeResult.Value(x) => Some(x)
                case failure: DecodeResult.Failure => Failed(ref, failure)

  final class QueryValues(ref: InputRef, name: String, codec: Codec[List[String], Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.queryOrNull match
      case null => Failed(ref, malformedQuery)
      case q: rapier.model.QueryParams => Failed.unwrap(ref, codec.decode(q.getAll(name)))

  final class AllQuery(ref: InputRef, codec: Codec[rapier.model.QueryParams, Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.queryOrNull match
      case null => Failed(ref, malformedQuery)
      case q: rapier.model.QueryParams => Failed.unwrap(ref, codec.decode(q))

  /**
   * A header with exactly one value; several field lines of it are an error, as RFC 9110 §5.3 would join them into
   * one comma-separated value that no single-value codec accepts.
   */
  final class HeaderSingle(ref: InputRef, name: String, inner: Codec[String, Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = request.headerOrNull(name) match
      case null => Failed(ref, DecodeResult.Missing)
      case v: String =>
        val all = request.headerValues(name)
        if all.lengthCompare(1) > 0 then Failed(ref, DecodeResult.Multiple(all.length))
        else Failed.unwrap(ref, inner.decode(v))

  final class HeaderValues(ref: InputRef, name: String, codec: Codec[List[String], Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = Failed.unwrap(ref, codec.decode(request.headerValues(name)))

  final class FixedHeader(ref: InputRef, name: String, value: String) extends LeafDecoder(ref):
    private val mismatch = DecodeResult.Mismatch(s"'$value'")
    def decode(request: ServerRequest): Any = request.headerValues(name) match
      case Nil => Failed(ref, DecodeResult.Missing)
      case v :: Nil if v.trim == value => ()
      case _ => Failed(ref, mismatch)

  final class AllHeaders(ref: InputRef, codec: Codec[List[rapier.model.Header], Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = Failed.unwrap(ref, codec.decode(request.headers))

  final class CookieValue(ref: InputRef, name: String, codec: Codec[Option[String], Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any =
      val values =
        request.headerValues(HeaderNames.Cookie).iterator.flatMap(Cookie.parseHeader).filter(_.name == name)
      val found = values.toList
      if found.lengthCompare(1) > 0 then Failed(ref, DecodeResult.Multiple(found.length))
      else Failed.unwrap(ref, codec.decode(found.headOption.map(_.value)))

  final class Extract(ref: InputRef, f: rapier.model.RequestView => DecodeResult[Any]) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = Failed.unwrap(ref, f(request))

  /** Another decoder, whose failures are reported as failures of `ref` (credentials read from a header). */
  final class Renamed(ref: InputRef, inner: LeafDecoder) extends LeafDecoder(ref):
    def decode(request: ServerRequest): Any = inner.decode(request) match
      case f: Failed => new Failed(f.failures.map(_.copy(input = ref)))
      case v => v

  /** The first of several decoders whose input is present; all absent is `Missing` for `ref`. */
  final class FirstPresent(ref: InputRef, alternatives: Array[LeafDecoder]) extends LeafDecoder(ref):
    private val missing = Failed(ref, DecodeResult.Missing)
    def decode(request: ServerRequest): Any =
      var i = 0
      while i < alternatives.length do
        alternatives(i).decode(request) match
          case f: Failed if f.failures.forall(_.failure == DecodeResult.Missing) => i += 1
          case result => return result
      missing

  /** Picks the decoder for a query parameter or header: the codecs derived for one value get the list-free paths. */
  def query(ref: InputRef, name: String, codec: Codec[List[String], Any]): LeafDecoder = codec match
    case SingleValue(inner) => QuerySingle(ref, name, inner.asInstanceOf[Codec[String, Any]])
    case OptionalValue(inner) => QueryOptional(ref, name, inner.asInstanceOf[Codec[String, Any]])
    case _ => QueryValues(ref, name, codec)

  def header(ref: InputRef, name: String, codec: Codec[List[String], Any]): LeafDecoder = codec match
    case SingleValue(inner) => HeaderSingle(ref, name, inner.asInstanceOf[Codec[String, Any]])
    case _ => HeaderValues(ref, name, codec)
