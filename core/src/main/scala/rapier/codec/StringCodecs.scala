package rapier.codec

import rapier.*

import java.util.UUID
import scala.compiletime.summonAll
import scala.deriving.Mirror

/**
 * Codecs between a single string (a path segment, one query or header value) and the usual scalar types. Parse
 * errors say what form was expected and never repeat the input.
 */
trait StringCodecs:
  given string: Codec[String, String] = Codec.id(summon[Schema[String]])

  given int: Codec[String, Int] =
    integral("an integer", Int.MinValue, Int.MaxValue, summon[Schema[Int]])(_.toInt)(_.toString)
  given long: Codec[String, Long] =
    integral("an integer", Long.MinValue, Long.MaxValue, summon[Schema[Long]])(identity)(_.toString)
  given short: Codec[String, Short] =
    integral("an integer", Short.MinValue, Short.MaxValue, summon[Schema[Short]])(_.toShort)(_.toString)
  given byte: Codec[String, Byte] =
    integral("an integer", Byte.MinValue, Byte.MaxValue, summon[Schema[Byte]])(_.toByte)(_.toString)

  given boolean: Codec[String, Boolean] = Codec(summon[Schema[Boolean]]) { (s: String) =>
    if s.equalsIgnoreCase("true") then DecodeResult.Value(true)
    else if s.equalsIgnoreCase("false") then DecodeResult.Value(false)
    else DecodeResult.Error("true or false")
  }(_.toString)

  given double: Codec[String, Double] = fromParser("a number", summon[Schema[Double]])(finite(_.toDouble))(_.toString)
  given float: Codec[String, Float] = fromParser("a number", summon[Schema[Float]])(finite(_.toFloat))(_.toString)
  given bigDecimal: Codec[String, BigDecimal] =
    fromParser("a decimal number", summon[Schema[BigDecimal]])(s => BigDecimal(s))(_.toString)
  given bigInt: Codec[String, BigInt] = fromParser("an integer", summon[Schema[BigInt]])(s => BigInt(s))(_.toString)
  given uuid: Codec[String, UUID] = fromParser("a UUID", summon[Schema[UUID]])(parseUuid)(_.toString)

  /** Codecs for Scala 3 enums whose cases are all singletons, by case name. */
  inline given enumeration[E](using m: Mirror.SumOf[E], isEnum: E <:< scala.reflect.Enum): Codec[String, E] =
    val values = summonAll[Tuple.Map[m.MirroredElemTypes, ValueOf]].toList.map(_.asInstanceOf[ValueOf[E]].value)
    enumerationOf(values, _.toString)

  /**
   * A codec for a fixed set of values, each written as `render(value)`; an exact match is preferred, and a match
   * ignoring case is accepted.
   */
  def enumerationOf[E](values: List[E], render: E => String): Codec[String, E] =
    val byName = values.map(v => render(v) -> v).toMap
    val byLowerName = values.map(v => render(v).toLowerCase(java.util.Locale.ROOT) -> v).toMap
    val expected = values.map(render).mkString("one of: ", ", ", "")
    val schema = Schema[E](SchemaType.SString, validator = Validator.enumeration(values, render))
    Codec(schema) { (s: String) =>
      byName.get(s).orElse(byLowerName.get(s.toLowerCase(java.util.Locale.ROOT))) match
        case Some(v) => DecodeResult.Value(v)
        case None => DecodeResult.Error(expected)
    }(render)

  /** A codec from a parser that throws on bad input; the exception is kept as the cause, for logs. */
  def fromParser[H](expected: String, schema: Schema[H])(parse: String => H)(render: H => String): Codec[String, H] =
    Codec(schema)((s: String) => DecodeResult.attempt(expected)(parse(s)))(render)

  /**
   * Integers are checked by hand before parsing, so the common bad inputs (words, empty strings) cost no exception.
   */
  private def integral[T](kind: String, min: Long, max: Long, schema: Schema[T])(narrow: Long => T)(
      render: T => String
  ): Codec[String, T] =
    val expected = s"$kind between $min and $max"
    Codec(schema) { (s: String) =>
      val n = s.length
      val start = if n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+') then 1 else 0
      var i = start
      var ok = n > start && n - start <= 19
      while ok && i < n do
        val c = s.charAt(i)
        ok = c >= '0' && c <= '9'
        i += 1
      if !ok then DecodeResult.Error(expected)
      else
        try
          val v = java.lang.Long.parseLong(s)
          if v < min || v > max then DecodeResult.Error(expected) else DecodeResult.Value(narrow(v))
        catch case e: NumberFormatException => DecodeResult.Error(expected, Some(e))
    }(render)

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
