package rapier.codec

/**
 * Numbers JSON Schema calls integers though they are written with a fraction or an exponent (`-12537.0`, `1e3`):
 * the codecs of integral types read the plain form first, and these only once it fails. Bounded, so that `1e999999999`
 * costs no more than `1`.
 */
private[rapier] object WholeNumbers:
  private final val MaxLength = 64
  private final val MaxDigits = 40

  /** The integer the characters of `s` from `from` to `to` stand for, written plainly (`-12537`); null if none. */
  def plain(s: CharSequence, from: Int, to: Int): String | Null =
    if to - from > MaxLength || !fractionOrExponent(s, from, to) then null
    else
      try
        val d = java.math.BigDecimal(s.subSequence(from, to).toString)
        if d.signum == 0 then "0"
        else
          val stripped = d.stripTrailingZeros
          if stripped.scale > 0 || stripped.precision - stripped.scale > MaxDigits then null
          else stripped.toBigIntegerExact.toString
      catch case _: NumberFormatException | _: ArithmeticException => null

  private def fractionOrExponent(s: CharSequence, from: Int, to: Int): Boolean =
    var i = from
    while i < to && { val c = s.charAt(i); c != '.' && c != 'e' && c != 'E' } do i += 1
    i < to
