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
   * is not a number between 0 and 1 counts as 1, as a lenient reading of a sender's mistake.
   */
  def parse(values: List[String]): List[MediaRange] =
    values.flatMap(_.split(',')).flatMap { entry =>
      val parts = entry.split(';').map(_.trim)
      val typeAndSub = parts.head.toLowerCase(Locale.ROOT).split('/')
      if typeAndSub.length != 2 || !Tokens.isToken(typeAndSub(0)) || !Tokens.isToken(typeAndSub(1)) then None
      else if typeAndSub(0) == "*" && typeAndSub(1) != "*" then None
      else
        val q = parts.tail.collectFirst {
          case p if p.toLowerCase(Locale.ROOT).startsWith("q=") => p.substring(2).trim.toDoubleOption
        }.flatten
        Some(MediaRange(typeAndSub(0), typeAndSub(1), q.filter(v => v >= 0 && v <= 1).getOrElse(1.0)))
    }

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
