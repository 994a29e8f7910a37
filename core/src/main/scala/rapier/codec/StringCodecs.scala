package rapier.codec

import rapier.*

import java.util.UUID
import scala.deriving.Mirror

/**
 * Codecs between a single string (a path segment, one query or header value) and the usual scalar types. Parse
 * errors say what form was expected and never repeat the input.
 */
trait StringCodecs:
  given string: Codec[String, String] = Codec.id(summon[Schema[String]])

  given int: Codec[String, Int] = IntegralCodec(Int.MinValue, Int.MaxValue, summon[Schema[Int]])
  given long: Codec[String, Long] = IntegralCodec(Long.MinValue, Long.MaxValue, summon[Schema[Long]])
  given short: Codec[String, Short] = IntegralCodec(Short.MinValue, Short.MaxValue, summon[Schema[Short]])
  given byte: Codec[String, Byte] = IntegralCodec(Byte.MinValue, Byte.MaxValue, summon[Schema[Byte]])

  given boolean: Codec[String, Boolean] = Codec(summon[Schema[Boolean]]) { (s: String) =>
    if s.equalsIgnoreCase("true") then DecodeResult.Value(true)
    else if s.equalsIgnoreCase("false") then DecodeResult.Value(false)
    else DecodeResult.Error("true or false")
  }(_.toString)

  given double: Codec[String, Double] = fromParser("a number", summon[Schema[Double]])(finite(_.toDouble))(_.toString)
  given float: Codec[String, Float] = fromParser("a number", summon[Schema[Float]])(finite(_.toFloat))(_.toString)
  given bigDecimal: Codec[String, BigDecimal] =
    fromParser(
      s"a decimal number of at most ${StringCodecs.MaxDigits} digits, its exponent within ±${StringCodecs.MaxScale}",
      summon[Schema[BigDecimal]]
    )(StringCodecs.boundedDecimal)(_.toString)
  given bigInt: Codec[String, BigInt] =
    fromParser(s"an integer of at most ${StringCodecs.MaxDigits} digits", summon[Schema[BigInt]])(
      StringCodecs.boundedInteger
    )(_.toString)
  given uuid: Codec[String, UUID] = fromParser("a UUID", summon[Schema[UUID]])(parseUuid)(_.toString)

  /** Codecs for Scala 3 enums whose cases are all singletons, by case name. */
  inline given enumeration[E](using m: Mirror.SumOf[E], isEnum: E <:< scala.reflect.Enum): Codec[String, E] =
    val values = Derivation.instances[m.MirroredElemTypes, ValueOf].map(_.value.asInstanceOf[E])
    enumerationOf(values, _.toString)

  /**
   * A codec for a fixed set of values, each written as `render(value)`; an exact match is preferred, and a match
   * ignoring case is accepted.
   */
  def enumerationOf[E](values: List[E], render: E => String): Codec[String, E] =
    val byName = values.map(v => render(v) -> v).toMap
    val byLowerName = values.map(v => render(v).toLowerCase(java.util.Locale.ROOT) -> v).toMap
    val expected = values.map(render).mkString("one of: ", ", ", "")
    val schema = Schema[E](SchemaType.SString, validator = Validator.Enumeration(values, render, exhaustive = true))
    Codec(schema) { (s: String) =>
      byName.get(s).orElse(byLowerName.get(s.toLowerCase(java.util.Locale.ROOT))) match
        case Some(v) => DecodeResult.Value(v)
        case None => DecodeResult.Error(expected)
    }(render)

  /** A codec from a parser that throws on bad input; the exception is kept as the cause, for logs. */
  def fromParser[H](expected: String, schema: Schema[H])(parse: String => H)(render: H => String): Codec[String, H] =
    Codec(schema)((s: String) => DecodeResult.attempt(expected)(parse(s)))(render)

  private def finite[T](parse: String => T)(s: String): T =
    val v = parse(s)
    v match
      case d: Double if d.isNaN || d.isInfinite => throw new NumberFormatException("not a finite number")
      case f: Float if f.isNaN || f.isInfinite => throw new NumberFormatException("not a finite number")
      case _ => v

  /** `UUID.fromString` accepts short forms like `1-2-3-4-5`; only the canonical 36-character form is a UUID here. */
  private def parseUuid(s: String): UUID =
    if s.length != 36 || s.charAt(8) != '-' || s.charAt(13) != '-' || s.charAt(18) != '-' || s.charAt(23) != '-' then
      throw new IllegalArgumentException("not a canonical UUID")
    UUID.fromString(s)

private[codec] object StringCodecs:
  /**
   * The most digits a big number takes, and the widest exponent a decimal's: jsoniter-scala's defaults for JSON, so
   * that `1e999999999`, which a later `toBigInt` or `setScale` would spend minutes and gigabytes on, is refused here.
   */
  val MaxDigits = 308
  val MaxScale = 6178

  def boundedInteger(s: String): BigInt =
    val signed = s.nonEmpty && (s.charAt(0) == '-' || s.charAt(0) == '+')
    if s.length - (if signed then 1 else 0) > MaxDigits then throw NumberFormatException("too many digits")
    try BigInt(s)
    catch
      case e: NumberFormatException =>
        val whole = WholeNumbers.plain(s, 0, s.length)
        if whole == null then throw e else BigInt(whole.nn)

  def boundedDecimal(s: String): BigDecimal =
    if s.length > MaxDigits + 16 then throw NumberFormatException("too long")
    val d = BigDecimal(s)
    if d.precision > MaxDigits || math.abs(d.scale.toLong) > MaxScale then throw NumberFormatException("out of bounds")
    d
