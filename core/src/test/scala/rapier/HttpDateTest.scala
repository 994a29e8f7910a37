package rapier

import rapier.model.HttpDate

import java.time.Instant

class HttpDateTest extends munit.FunSuite:
  private val instant = Instant.parse("1994-11-06T08:49:37Z")

  test("written in the preferred form, read in all three of RFC 9110 §5.6.7"):
    assertEquals(HttpDate.format(instant.plusMillis(999)), "Sun, 06 Nov 1994 08:49:37 GMT")
    assertEquals(HttpDate.parseOrNull("Sun, 06 Nov 1994 08:49:37 GMT"), instant)
    assertEquals(HttpDate.parseOrNull(" Sun, 06 Nov 1994 08:49:37 GMT "), instant)
    assertEquals(HttpDate.parseOrNull("Sun Nov  6 08:49:37 1994"), instant)
    assertEquals(HttpDate.parseOrNull("Sunday, 06-Nov-94 08:49:37 GMT"), instant)

  test("a two-digit year more than 50 years ahead is of the last century"):
    val next = java.time.Year.now(java.time.ZoneOffset.UTC).getValue % 100 + 10
    val date = HttpDate.parseOrNull(f"Monday, 01-Jan-${next % 100}%02d 00:00:00 GMT")
    assert(date != null && date.nn.isAfter(Instant.now()), s"$date")

  test("anything else is not a date"):
    for bad <- List("", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT", "1994-11-06")
    do assertEquals(HttpDate.parseOrNull(bad), null, bad)
