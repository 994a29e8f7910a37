package rapier

import scala.deriving.Mirror
import rapier.model.{CookieValueWithMeta, Header as HeaderField, Method, QueryParams, RequestView, StatusCode}

// The model's inputs and outputs: one sealed tree, so one file (Scala requires a sealed type's subclasses to be
// declared beside it). Everything else about them lives in files of its own: the walk over the tree (IOTree), `oneOf`
// variants (OneOfVariant), validation as a decoding step (Validate).

/**
 * A part of a request that an endpoint reads, with the typed value `T` it yields.
 *
 * Inputs are pure data: a sealed tree of basic inputs (a path segment, a query parameter, a header, the body, …)
 * joined by `and` and transformed by `map`. Interpreters walk the tree once, when a server starts.
 */
sealed trait EndpointInput[T]:
  /** This input and then `other`; their values combine (see [[Combine]]). */
  def and[U](other: EndpointInput[U])(using c: Combine[T, U]): EndpointInput[c.Out] =
    EndpointInput.Pair[T, U, c.Out](this, other, c.leftArity, c.rightArity)

  /** This input and then `other`, for paths: `"books" / path[Long]("id")`. */
  def /[U](other: EndpointInput[U])(using c: Combine[T, U]): EndpointInput[c.Out] = and(other)

  /** This input and then a fixed path segment. */
  def /(segment: String)(using c: Combine[T, Unit]): EndpointInput[c.Out] = and(EndpointInput.FixedPath(segment))

  /** The input's values as the fields of a case class: `query[Int]("x").and(query[Int]("y")).mapTo[Point]`. */
  def mapTo[C](using m: Mirror.ProductOf[C])(using t: AsTuple.Aux[T, m.MirroredElemTypes]): EndpointInput[C] =
    map[C](v => m.fromProduct(Tuples.asProduct(v, t.arity)))(c =>
      Tuples.fromProduct(c.asInstanceOf[Product], t.arity).asInstanceOf[T]
    )

  /** The same input, read as a `U`. */
  def map[U](f: T => U)(g: U => T): EndpointInput[U] = EndpointInput.Mapped(this, (t: T) => DecodeResult.Value(f(t)), g)

  /** The same input, read as a `U` by a conversion that may fail; a failure is a decode failure of this input. */
  def mapDecode[U](f: T => DecodeResult[U])(g: U => T): EndpointInput[U] = EndpointInput.Mapped(this, f, g)

  /** The same input, with its value also checked by `v`. */
  def validate(v: Validator[T]): EndpointInput[T] = mapDecode(Validate(v))(identity)

object EndpointInput:
  /** An input that reads one part of the request. */
  sealed trait Basic[T] extends EndpointInput[T]

  /** The request's method must be `method`. */
  final case class FixedMethod(method: Method) extends Basic[Unit]

  /** The next path segment must be `segment` (compared after percent-decoding). */
  final case class FixedPath(segment: String, info: IOInfo = IOInfo.empty) extends Basic[Unit]

  /**
   * The next path segment, percent-decoded and decoded by `codec`. It never holds `.`, `..` or control characters,
   * nor a `/` unless `allowEncodedSlash` says so (for keys that contain slashes, sent as `%2F`).
   */
  final case class PathCapture[T](
      name: String,
      codec: Codec[String, T],
      info: IOInfo = IOInfo.empty,
      encodedSlash: Boolean = false
  ) extends Basic[T]:
    /** Accepts `%2F` in this segment, decoded as `/`. */
    def allowEncodedSlash: PathCapture[T] = copy(encodedSlash = true)
    def description(d: String): PathCapture[T] = copy(info = info.description(d))
    def example(e: String): PathCapture[T] = copy(info = info.example(e))
    override def validate(v: Validator[T]): PathCapture[T] = copy(codec = codec.validate(v))

  /** All remaining path segments (possibly none), each percent-decoded. Must come last in the path. */
  final case class PathsCapture[T](codec: Codec[List[String], T], info: IOInfo = IOInfo.empty) extends Basic[T]:
    def description(d: String): PathsCapture[T] = copy(info = info.description(d))
    override def validate(v: Validator[T]): PathsCapture[T] = copy(codec = codec.validate(v))

  /** Every value of one query parameter, decoded by `codec`. */
  final case class Query[T](name: String, codec: Codec[List[String], T], info: IOInfo = IOInfo.empty)
      extends Basic[T]:
    def description(d: String): Query[T] = copy(info = info.description(d))
    def example(e: String): Query[T] = copy(info = info.example(e))
    def deprecated: Query[T] = copy(info = info.deprecate)
    override def validate(v: Validator[T]): Query[T] = copy(codec = codec.validate(v))

  /** All query parameters. */
  final case class AllQuery[T](codec: Codec[QueryParams, T], info: IOInfo = IOInfo.empty) extends Basic[T]:
    def description(d: String): AllQuery[T] = copy(info = info.description(d))

  /** One cookie of the `Cookie` header, decoded by `codec`. */
  final case class Cookie[T](name: String, codec: Codec[Option[String], T], info: IOInfo = IOInfo.empty)
      extends Basic[T]:
    def description(d: String): Cookie[T] = copy(info = info.description(d))
    override def validate(v: Validator[T]): Cookie[T] = copy(codec = codec.validate(v))

  /**
   * Credentials of one scheme, read by `input` (the `Authorization` header for Basic and Bearer; the header, query
   * parameter or cookie of an API key). Absent credentials are `Missing`, answered with 401 and the scheme's
   * `WWW-Authenticate` challenge. Build with [[rapier.auth]].
   */
  final case class Auth[T](scheme: AuthScheme, input: Auth.Source[T], info: IOInfo = IOInfo.empty) extends Basic[T]:
    def description(d: String): Auth[T] = copy(info = info.description(d))

    /** The same credentials read as a `U`: still an authentication input, e.g. for `auth.firstOf`. */
    override def map[U](f: T => U)(g: U => T): Auth[U] = mapDecode(t => DecodeResult.Value(f(t)))(g)

    /** The same credentials read as a `U` by a conversion that may fail: the source's codec does the conversion. */
    override def mapDecode[U](f: T => DecodeResult[U])(g: U => T): Auth[U] =
      val mapped: Auth.Source[U] = input match
        case h: EndpointIO.Header[T] @unchecked => h.copy(codec = h.codec.mapDecode(f)(g))
        case q: Query[T] @unchecked => q.copy(codec = q.codec.mapDecode(f)(g))
        case c: Cookie[T] @unchecked => c.copy(codec = c.codec.mapDecode(f)(g))
      Auth(scheme, mapped, info)

    /** The realm named in the challenge (RFC 9110 §11.5). */
    def realm(r: String): Auth[T] = copy(scheme = scheme.withRealm(r))

  object Auth:
    /** Where credentials are read: a header, a query parameter or a cookie. */
    type Source[T] = EndpointIO.Header[T] | Query[T] | Cookie[T]

  /**
   * Several credential schemes, of which the request uses one: the first present is decoded (a malformed one is a
   * failure, not a reason to try the next); none present is `Missing`, answered with every scheme's challenge.
   */
  final case class AuthAlternatives[T](alternatives: List[Auth[?]], info: IOInfo = IOInfo.empty) extends Basic[T]

  /** Anything else about the request, read by a function: the escape hatch. */
  final case class ExtractFromRequest[T](f: RequestView => DecodeResult[T], info: IOInfo = IOInfo.empty)
      extends Basic[T]:
    def description(d: String): ExtractFromRequest[T] = copy(info = info.description(d))

  /**
   * Two inputs in sequence. The arities say how many values each side stands for (-1: unknown, resolved when the
   * endpoint is compiled).
   */
  final case class Pair[A, B, C](left: EndpointInput[A], right: EndpointInput[B], leftArity: Int, rightArity: Int)
      extends EndpointInput[C]

  /** An input read as another type. */
  final case class Mapped[A, B](input: EndpointInput[A], f: A => DecodeResult[B], g: B => A) extends EndpointInput[B]

/** A part of a response that an endpoint writes, from the typed value `T`. */
sealed trait EndpointOutput[T]:
  /** This output and then `other`; their values combine (see [[Combine]]). */
  def and[U](other: EndpointOutput[U])(using c: Combine[T, U]): EndpointOutput[c.Out] =
    EndpointOutput.Pair[T, U, c.Out](this, other, c.leftArity, c.rightArity)

  /** The output's values from the fields of a case class. */
  def mapTo[C](using m: Mirror.ProductOf[C])(using t: AsTuple.Aux[T, m.MirroredElemTypes]): EndpointOutput[C] =
    map[C](v => m.fromProduct(Tuples.asProduct(v, t.arity)))(c =>
      Tuples.fromProduct(c.asInstanceOf[Product], t.arity).asInstanceOf[T]
    )

  /** The same output, written from a `U`. */
  def map[U](f: T => U)(g: U => T): EndpointOutput[U] =
    EndpointOutput.Mapped(this, (t: T) => DecodeResult.Value(f(t)), g)

  /** The same output, written from a `U`; reading it back (in a client) may fail. */
  def mapDecode[U](f: T => DecodeResult[U])(g: U => T): EndpointOutput[U] = EndpointOutput.Mapped(this, f, g)

object EndpointOutput:
  /** An output that writes one part of the response. */
  sealed trait Basic[T] extends EndpointOutput[T]

  /** The response has this status code. */
  final case class FixedStatusCode(code: StatusCode, info: IOInfo = IOInfo.empty) extends Basic[Unit]

  /** The response's status code is the value. */
  final case class StatusCodeValue(info: IOInfo = IOInfo.empty) extends Basic[StatusCode]

  /** A `Set-Cookie` header for the cookie `name`. */
  final case class SetCookie[T](name: String, codec: Codec[Option[CookieValueWithMeta], T], info: IOInfo = IOInfo.empty)
      extends Basic[T]:
    require(model.Tokens.isToken(name), s"not a valid cookie name: '$name'")
    def description(d: String): SetCookie[T] = copy(info = info.description(d))

  /** One of several outputs, chosen by the value: the first variant that applies to it is written. */
  /**
   * A WebSocket (RFC 6455): the request is upgraded (101) once its inputs are decoded and the logic has answered with
   * `P`, a pipe from the client's messages (`In`) to the server's (`Out`) in the shape its [[WebSocketKind]] names,
   * which runs for as long as the connection. Each message is read and written whole by its codec; pings, pongs,
   * fragments, the close handshake and the limits are the backend's. A message longer than `maxMessageSize` closes
   * the connection with 1009; one of the other kind (binary for text) with 1003; one its codec can't read with 1007;
   * no frame either way for `idleTimeout` with 1001. An upgrade from a page whose `Origin` the `origins` policy does
   * not allow is refused with 403 (pages of the server's own origin only, unless told otherwise: see
   * [[WebSocketOrigins]] for the cross-site risk).
   */
  final case class WebSocketBody[In, Out, P](
      kind: WebSocketKind[P],
      in: WebSocketCodec[In],
      out: WebSocketCodec[Out],
      maxMessageSize: Int = 1024 * 1024,
      idleTimeout: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration.Inf,
      info: IOInfo = IOInfo.empty,
      origins: WebSocketOrigins = WebSocketOrigins.SameOrigin
  ) extends Basic[P]:
    require(maxMessageSize > 0, "maxMessageSize must be positive")
    def withMaxMessageSize(bytes: Int): WebSocketBody[In, Out, P] = copy(maxMessageSize = bytes)

    /** Pages of these origins may open it (`https://app.example.com`), besides clients that send no `Origin`. */
    def withAllowedOrigins(origin: String, more: String*): WebSocketBody[In, Out, P] =
      copy(origins = WebSocketOrigins.Only((origin +: more).toSet))

    /** Pages of any origin may open it: for a WebSocket that takes no credentials a browser sends by itself. */
    def withAnyOrigin: WebSocketBody[In, Out, P] = copy(origins = WebSocketOrigins.Any)
    def withIdleTimeout(timeout: scala.concurrent.duration.Duration): WebSocketBody[In, Out, P] =
      copy(idleTimeout = timeout)
    def description(d: String): WebSocketBody[In, Out, P] = copy(info = info.description(d))

  final case class OneOf[T](variants: List[OneOfVariant[? <: T]]) extends EndpointOutput[T]

  final case class Pair[A, B, C](left: EndpointOutput[A], right: EndpointOutput[B], leftArity: Int, rightArity: Int)
      extends EndpointOutput[C]

  final case class Mapped[A, B](output: EndpointOutput[A], f: A => DecodeResult[B], g: B => A)
      extends EndpointOutput[B]

/** Both an input and an output: bodies, headers and the empty value read and write the same way. */
sealed trait EndpointIO[T] extends EndpointInput[T], EndpointOutput[T]:
  def and[U](other: EndpointIO[U])(using c: Combine[T, U]): EndpointIO[c.Out] =
    EndpointIO.Pair[T, U, c.Out](this, other, c.leftArity, c.rightArity)

  override def mapTo[C](using m: Mirror.ProductOf[C])(using t: AsTuple.Aux[T, m.MirroredElemTypes]): EndpointIO[C] =
    map[C](v => m.fromProduct(Tuples.asProduct(v, t.arity)))(c =>
      Tuples.fromProduct(c.asInstanceOf[Product], t.arity).asInstanceOf[T]
    )

  override def map[U](f: T => U)(g: U => T): EndpointIO[U] =
    EndpointIO.Mapped(this, (t: T) => DecodeResult.Value(f(t)), g)
  override def mapDecode[U](f: T => DecodeResult[U])(g: U => T): EndpointIO[U] = EndpointIO.Mapped(this, f, g)
  override def validate(v: Validator[T]): EndpointIO[T] = mapDecode(Validate(v))(identity)

object EndpointIO:
  /** Nothing: no value read or written. */
  case object Empty extends EndpointIO[Unit]

  /** The body, held as `R` and decoded by `codec`. */
  final case class Body[R, T](raw: RawBodyType[R], codec: Codec[R, T], info: IOInfo = IOInfo.empty)
      extends EndpointIO[T],
        EndpointInput.Basic[T],
        EndpointOutput.Basic[T]:
    def description(d: String): Body[R, T] = copy(info = info.description(d))
    def example(e: String): Body[R, T] = copy(info = info.example(e))
    override def validate(v: Validator[T]): Body[R, T] = copy(codec = codec.validate(v))

  /**
   * One body in several representations (JSON, text, …): a request's is read by the variant its `Content-Type`
   * names (415 if none), a response's written in the one the request's `Accept` prefers, q-values considered (406
   * if none is acceptable; the first variant when there is no `Accept`). The header is parsed only for endpoints
   * with such a body.
   */
  final case class OneOfBody[T](variants: List[Body[?, T]], info: IOInfo = IOInfo.empty)
      extends EndpointIO[T],
        EndpointInput.Basic[T],
        EndpointOutput.Basic[T]:
    require(variants.nonEmpty, "oneOfBody needs at least one body")
    def description(d: String): OneOfBody[T] = copy(info = info.description(d))

  /** Every value of one header, decoded by `codec`. */
  final case class Header[T](name: String, codec: Codec[List[String], T], info: IOInfo = IOInfo.empty)
      extends EndpointIO[T],
        EndpointInput.Basic[T],
        EndpointOutput.Basic[T]:
    require(model.Tokens.isToken(name), s"not a valid header name: '$name'")
    def description(d: String): Header[T] = copy(info = info.description(d))
    def example(e: String): Header[T] = copy(info = info.example(e))
    override def validate(v: Validator[T]): Header[T] = copy(codec = codec.validate(v))

  /** A header with one fixed value: required as an input, always sent as an output. */
  final case class FixedHeader(name: String, value: String, info: IOInfo = IOInfo.empty)
      extends EndpointIO[Unit],
        EndpointInput.Basic[Unit],
        EndpointOutput.Basic[Unit]:
    require(model.Tokens.isToken(name), s"not a valid header name: '$name'")
    require(model.Tokens.isFieldValue(value), s"not a valid value for header '$name'")
    def description(d: String): FixedHeader = copy(info = info.description(d))

  /** All headers. */
  final case class AllHeaders[T](codec: Codec[List[HeaderField], T], info: IOInfo = IOInfo.empty)
      extends EndpointIO[T],
        EndpointInput.Basic[T],
        EndpointOutput.Basic[T]

  final case class Pair[A, B, C](left: EndpointIO[A], right: EndpointIO[B], leftArity: Int, rightArity: Int)
      extends EndpointIO[C]

  final case class Mapped[A, B](io: EndpointIO[A], f: A => DecodeResult[B], g: B => A) extends EndpointIO[B]
