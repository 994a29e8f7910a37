package rapier.server.files

import rapier.model.HttpDate

import java.time.Instant

class PreconditionsTest extends munit.FunSuite:
  import Preconditions.Outcome.*

  private val tag = "\"3e8-18f\""
  private val modified = Instant.parse("2026-01-02T03:04:05.678Z")
  private val date = HttpDate.format(modified)
  private val none = Conditions(false, Nil, Nil, null, null, Nil)

  test("entity-tag lists: strong and weak comparison, *, commas inside tags, lists that can't be read"):
    assert(Preconditions.matches(List(tag), tag, weak = false))
    assert(Preconditions.matches(List(s"\"a\", $tag"), tag, weak = false))
    assert(Preconditions.matches(List("\"a\"", s" $tag "), tag, weak = false))
    assert(!Preconditions.matches(List(s"W/$tag"), tag, weak = false))
    assert(Preconditions.matches(List(s"W/$tag"), tag, weak = true))
    assert(Preconditions.matches(List("*"), tag, weak = false))
    assert(!Preconditions.matches(List("\"3e8,18f\""), tag, weak = true))
    assert(!Preconditions.matches(List("3e8-18f"), tag, weak = true))
    assert(!Preconditions.matches(List("\"3e8-18f"), tag, weak = true))
    assert(!Preconditions.matches(List("\"3e8-18f-gzip\""), tag, weak = true))

  test("RFC 9110 §13.2.2's order"):
    assertEquals(Preconditions.evaluate(none, tag, modified), Proceed)
    assertEquals(Preconditions.evaluate(none.copy(ifMatch = List("\"x\"")), tag, modified), Failed)
    val matchButStale = none.copy(ifMatch = List(tag), ifUnmodifiedSince = "Sat, 01 Jan 2000 00:00:00 GMT")
    assertEquals(Preconditions.evaluate(matchButStale, tag, modified), Proceed, "If-Match decides over the date")
    assertEquals(Preconditions.evaluate(none.copy(ifUnmodifiedSince = date), tag, modified), Proceed)
    assertEquals(Preconditions.evaluate(none.copy(ifUnmodifiedSince = "garbage"), tag, modified), Proceed)
    assertEquals(Preconditions.evaluate(none.copy(ifNoneMatch = List(tag)), tag, modified), NotModified)
    assertEquals(Preconditions.evaluate(none.copy(ifModifiedSince = date), tag, modified), NotModified)
    assertEquals(Preconditions.evaluate(none.copy(ifModifiedSince = date), tag, null), Proceed)
    val both = none.copy(ifNoneMatch = List("\"x\""), ifModifiedSince = date)
    assertEquals(Preconditions.evaluate(both, tag, modified), Proceed, "If-None-Match decides over the date")
    val failedFirst = none.copy(ifMatch = List("\"x\""), ifNoneMatch = List(tag))
    assertEquals(Preconditions.evaluate(failedFirst, tag, modified), Failed)
