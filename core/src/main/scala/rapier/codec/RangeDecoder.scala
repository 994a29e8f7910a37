package rapier.codec

import rapier.*

/**
 * A string codec that decodes a range of a larger string where it lies, without copying it out first: path
 * captures are ranges of the request target, and copying `4` out of `/path0/4` costs a string per request.
 *
 * For interpreters only: the result is the value itself, or a [[DecodeResult.Failure]], so that a success needs no
 * wrapper either; validators are not run.
 */
private[rapier] trait RangeDecoder:
  def rawDecodeRange(s: String, from: Int, to: Int): Any

/**
 * Integers, parsed by hand: no exception for the common bad inputs (words, empty strings), and no copy when the
 * digits are part of a larger string. `min` and `max` are those of `T` (`Byte`, `Short`, `Int` or `Long`), and say
 * which it is: the value parsed is boxed once, as a `T`, not first as a `Long`.
 */
private[rapier] final class IntegralCodec[T](min: Long, max: Long, val schema: Schema[T])
    extends Codec[String, T],
      RangeDecoder:
  private val failure = DecodeResult.Error(s"an integer between $min and $max")
  private val width = max match
    case Long.MaxValue => 8
    case 0x7fffffffL => 4
    case 0x7fffL => 2
    case 0x7fL => 1
    case other => throw IllegalArgumentException(s"no integral type has $other as its largest value")
  def mediaType = rapier.model.MediaType.TextPlain

  def rawDecode(raw: String): DecodeResult[T] = rawDecodeRange(raw, 0, raw.length) match
    case f: DecodeResult.Failure => f
    case v => DecodeResult.Value(v.asInstanceOf[T])

  def encode(value: T): String = value.toString

  /** A plain integer; or, once that fails, one written with a zero fraction or an exponent ([[WholeNumbers]]). */
  def rawDecodeRange(s: String, from: Int, to: Int): Any = plain(s, from, to) match
    case f: DecodeResult.Failure =>
      val whole = WholeNumbers.plain(s, from, to)
      if whole == null then f else plain(whole.nn, 0, whole.nn.length)
    case v => v

  private def plain(s: String, from: Int, to: Int): Any =
    var i = from
    val negative = i < to && s.charAt(i) == '-'
    if i < to && (negative || s.charAt(i) == '+') then i += 1
    if i == to || to - i > 19 then failure
    else
      // Accumulated negatively, as the JDK does, so that Long.MinValue fits.
      val limit = if negative then Long.MinValue else -Long.MaxValue
      val multLimit = limit / 10
      var acc = 0L
      var ok = true
      while ok && i < to do
        val digit = s.charAt(i) - '0'
        if digit < 0 || digit > 9 || acc < multLimit then ok = false
        else
          acc *= 10
          if acc < limit + digit then ok = false else acc -= digit
        i += 1
      val v = if negative then acc else -acc
      if !ok || v < min || v > max then failure
      else
        width match
          case 4 => Int.box(v.toInt)
          case 8 => Long.box(v)
          case 2 => Short.box(v.toShort)
          case _ => Byte.box(v.toByte)

  override protected def withSchema(s: Schema[T]): Codec[String, T] = IntegralCodec(min, max, s)
