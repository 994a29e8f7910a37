package rapier

import rapier.codec.*
import rapier.model.MediaType

import scala.annotation.implicitNotFound

/**
 * Converts between a raw value `L`, as it travels over HTTP, and a typed value `H`, in both directions.
 *
 * `L` is what the request holds for an input: `String` for a path segment, `List[String]` for a query parameter or
 * header (every occurrence), `Option[String]` for a cookie, `String` or `Array[Byte]` for a body. A codec also
 * carries the schema of `H` (with its validator) and the media type of bodies it produces.
 *
 * Decoding runs `rawDecode` and then the schema's validator, so every codec validates the same way.
 *
 * @tparam L
 *   the raw type
 * @tparam H
 *   the typed ("high-level") value
 */
@implicitNotFound(
  "No Codec[${L}, ${H}]: Rapier can't read a ${H} from a raw ${L}.\n" +
    "Codecs exist for String, Int, Long, Short, Byte, Boolean, Float, Double, BigDecimal, BigInt, UUID, java.time " +
    "types and Scala 3 enums with singleton cases; query parameters and headers get Option[T] and List[T] from " +
    "these.\nFor your own type, map an existing codec, e.g.\n" +
    "  given Codec[String, ${H}] = Codec.string.mapEither(s => parse(s).toRight(\"a valid ...\"))(_.toString)"
)
trait Codec[L, H]:
  /** Decodes without validating; `decode` validates. */
  def rawDecode(raw: L): DecodeResult[H]

  def encode(value: H): L
  def schema: Schema[H]

  /** The media type of a body written with this codec (`text/plain` where there is no better one). */
  def mediaType: MediaType

  /**
   * Decodes and validates: a value breaking the schema's rules (its own, or those of values nested in it) is an
   * `InvalidValue` listing them all.
   */
  final def decode(raw: L): DecodeResult[H] =
    val result = rawDecode(raw)
    val s = schema
    if !s.hasRules then result
    else
      result match
        case DecodeResult.Value(v) =>
          val errors = s.check(v)
          if errors.isEmpty then result else DecodeResult.InvalidValue(errors)
        case failure => failure

  /** A codec for `HH`, through a conversion that can't fail. */
  def map[HH](f: H => HH)(g: HH => H): Codec[L, HH] =
    Codec.Mapped(this, (h: H) => DecodeResult.Value(f(h)), g, schema.as[HH], mediaType)

  /** A codec for `HH`, through a conversion that may fail. */
  def mapDecode[HH](f: H => DecodeResult[HH])(g: HH => H): Codec[L, HH] =
    Codec.Mapped(this, f, g, schema.as[HH], mediaType)

  /**
   * A codec for `HH`, through a conversion that may fail with `Left(expected)`, where `expected` describes the
   * accepted form ("an ISBN-13").
   */
  def mapEither[HH](f: H => Either[String, HH])(g: HH => H): Codec[L, HH] =
    mapDecode(h =>
      f(h) match
        case Right(v) => DecodeResult.Value(v)
        case Left(expected) => DecodeResult.Error(expected)
    )(g)

  /** Continues decoding with another codec. */
  def andThen[HH](next: Codec[H, HH]): Codec[L, HH] =
    Codec.Mapped(this, next.decode, next.encode, next.schema.as[HH], next.mediaType)

  /** The same codec, with values also checked by `v`. */
  def validate(v: Validator[H]): Codec[L, H] = withSchema(schema.validate(v))

  def schema(s: Schema[H]): Codec[L, H] = withSchema(s)
  def modifySchema(f: Schema[H] => Schema[H]): Codec[L, H] = withSchema(f(schema))
  def description(d: String): Codec[L, H] = withSchema(schema.description(d))

  def mediaType(m: MediaType): Codec[L, H] = Codec.Impl(this.rawDecode, this.encode, schema, m)

  /** This codec with another schema; kinds of codec that the interpreter recognizes keep their kind. */
  protected def withSchema(s: Schema[H]): Codec[L, H] = Codec.Impl(this.rawDecode, this.encode, s, mediaType)

object Codec extends StringCodecs, TimeCodecs, MultiValueCodecs, BodyCodecs:

  /** A codec from two functions. */
  def apply[L, H](schema: Schema[H], mediaType: MediaType = MediaType.TextPlain)(decode: L => DecodeResult[H])(
      encode: H => L
  ): Codec[L, H] = Impl(decode, encode, schema, mediaType)

  /** The identity codec. */
  def id[L](schema: Schema[L], mediaType: MediaType = MediaType.TextPlain): Codec[L, L] =
    Impl(DecodeResult.Value(_), identity, schema, mediaType)

  final case class Impl[L, H](
      decodeF: L => DecodeResult[H],
      encodeF: H => L,
      schema: Schema[H],
      mediaType: MediaType
  ) extends Codec[L, H]:
    def rawDecode(raw: L): DecodeResult[H] = decodeF(raw)
    def encode(value: H): L = encodeF(value)

  final case class Mapped[L, H, HH](
      underlying: Codec[L, H],
      f: H => DecodeResult[HH],
      g: HH => H,
      schema: Schema[HH],
      mediaType: MediaType
  ) extends Codec[L, HH]:
    def rawDecode(raw: L): DecodeResult[HH] = underlying.decode(raw) match
      case DecodeResult.Value(v) => f(v)
      case failure: DecodeResult.Failure => failure
    def encode(value: HH): L = underlying.encode(g(value))
