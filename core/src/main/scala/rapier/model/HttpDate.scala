package rapier.model

import java.time.format.DateTimeFormatter
import java.time.{Instant, LocalDateTime, ZoneOffset, ZonedDateTime}
import java.util.Locale

/**
 * Dates as HTTP writes them (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, whole seconds in GMT. Read in the
 * two obsolete forms too (`Sunday, 06-Nov-94 08:49:37 GMT`, asctime's `Sun Nov  6 08:49:37 1994`), as a recipient
 * must.
 */
object HttpDate:
  private val imf = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC)
  private val rfc850 = DateTimeFormatter.ofPattern("dd-MMM-yy HH:mm:ss 'GMT'", Locale.ROOT)
  private val asctime = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT)

  /** `instant` in the preferred form, its fraction of a second dropped. */
  def format(instant: Instant): String = imf.format(instant)

  /** The instant `value` names, or null when it is in none of the three forms. */
  def parseOrNull(value: String): Instant | Null =
    val s = value.trim
    try ZonedDateTime.parse(s, imf).toInstant
    catch
      case _: java.time.DateTimeException =>
        try
          // A two-digit year is of this century unless that puts it over 50 years ahead (RFC 9110 §5.6.7); the
          // day's name is left out, as it is of the year the formatter would guess.
          val comma = s.indexOf(", ")
          val parsed = LocalDateTime.parse(if comma < 0 then s else s.substring(comma + 2), rfc850)
          val now = java.time.Year.now(ZoneOffset.UTC).getValue
          val year = parsed.getYear % 100 + now / 100 * 100
          val fixed = parsed.withYear(if year > now + 50 then year - 100 else year)
          fixed.toInstant(ZoneOffset.UTC)
        catch
          case _: java.time.DateTimeException =>
            try LocalDateTime.parse(s, asctime).toInstant(ZoneOffset.UTC)
            catch case _: java.time.DateTimeException => null
