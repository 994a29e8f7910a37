package rapier.model

import java.util.Locale

/** One media range of an `Accept` header (RFC 9110 §12.5.1), such as `text/plain;q=0.5`. */
final case class MediaRange(mainType: String, subType: String, q: Double):
  def matches(m: MediaType): Boolean =
    (mainType == "*" || mainType == m.mainType) && (subType == "*" || subType == m.subType)

  /** How specific the range is: 0 for any type, 1 for any subtype of a type (`text`), 2 for one type. */
  def specificity: Int = if mainType == "*" then 0 else if subType == "*" then 1 else 2

/** Content negotiation by `Accept`. */
object Accept:
  /**
   * The media ranges of `Accept` header values, in order. Entries that are not media ranges are skipped; a `q` that
   * is not a number between 0 and 1 counts as 1, as a lenient reading of a sender's mistake. Entries are split at
   * commas and parameters read as [[HeaderParameters]] reads them, outside quoted strings: `text/plain;f="a,b";q=0.1`
   * is one range, of weight 0.1.
   */
  def parse(values: List[String]): List[MediaRange] =
    values.flatMap(elements).flatMap(range)

  /** The non-blank elements of a comma-separated header value, split at the commas outside quoted strings. */
  private def elements(value: String): List[String] =
    val found = List.newBuilder[String]
    var start = 0
    var quoted = false
    var i = 0
    while i <= value.length do
      if i == value.length || (!quoted && value.charAt(i) == ',') then
        // Trimmed by its bounds, so that an element is one substring however it is spaced
        var from = start
        var to = i
        while from < to && value.charAt(from) <= ' ' do from += 1
        while to > from && value.charAt(to - 1) <= ' ' do to -= 1
        if to > from then found += value.substring(from, to)
        start = i + 1
      else if value.charAt(i) == '"' then quoted = !quoted
      // An escape skips the character after it; a backslash that ends the value escapes nothing
      else if quoted && value.charAt(i) == '\\' && i + 1 < value.length then i += 1
      i += 1
    found.result()

  private def range(element: String): Option[MediaRange] =
    val end = element.indexOf(';') match
      case -1 => element.length
      case i => i
    val typeAndSub = element.substring(0, end).trim.toLowerCase(Locale.ROOT).split('/')
    if typeAndSub.length != 2 || !Tokens.isToken(typeAndSub(0)) || !Tokens.isToken(typeAndSub(1)) then None
    else if typeAndSub(0) == "*" && typeAndSub(1) != "*" then None
    else
      val q = HeaderParameters.find(element, "q") match
        case null => None
        case v => v.nn.trim.toDoubleOption
      Some(MediaRange(typeAndSub(0), typeAndSub(1), q.filter(v => v >= 0 && v <= 1).getOrElse(1.0)))

  /**
   * The index of the offered type the ranges prefer: each offer takes the q of the most specific range matching it;
   * the highest q above 0 wins, and of equal ones the first offered. No ranges (no `Accept`) accept the first
   * offer; -1 when none is acceptable.
   */
  def choose(ranges: List[MediaRange], offered: IndexedSeq[MediaType]): Int =
    if ranges.isEmpty then 0
    else
      var best = -1
      var bestQ = 0.0
      var i = 0
      while i < offered.length do
        val matching = ranges.filter(_.matches(offered(i)))
        if matching.nonEmpty then
          val top = matching.map(_.specificity).max
          val q = matching.filter(_.specificity == top).map(_.q).max
          if q > bestQ then
            best = i
            bestQ = q
        i += 1
      best
