package rapier.codec

import rapier.*

import java.time.*

/** Codecs between ISO-8601 strings and `java.time` values. */
trait TimeCodecs:
  private def iso[T](what: String, example: String, parse: String => T)(using s: Schema[T]): Codec[String, T] =
    Codec.fromParser(s"an ISO-8601 $what, e.g. $example", s)(parse)(_.toString)

  given instant: Codec[String, Instant] = iso("instant", "2024-01-31T12:00:00Z", Instant.parse)
  given offsetDateTime: Codec[String, OffsetDateTime] =
    iso("date-time with offset", "2024-01-31T12:00:00+01:00", OffsetDateTime.parse)
  given zonedDateTime: Codec[String, ZonedDateTime] =
    iso("date-time with zone", "2024-01-31T12:00:00+01:00[Europe/Paris]", ZonedDateTime.parse)
  given localDateTime: Codec[String, LocalDateTime] = iso("local date-time", "2024-01-31T12:00:00", LocalDateTime.parse)
  given localDate: Codec[String, LocalDate] = iso("date", "2024-01-31", LocalDate.parse)
  given localTime: Codec[String, LocalTime] = iso("time", "12:00:00", LocalTime.parse)
  given duration: Codec[String, Duration] = iso("duration", "PT15M", Duration.parse)
