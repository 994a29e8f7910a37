package rapier

import scala.concurrent.duration.*

/** The one rule for a timeout or period every option follows, and the nanoseconds a server arms for it. */
class TimeoutsTest extends munit.FunSuite:
  private val refused = List(Duration.Zero, -1.milli, Duration.MinusInf, Duration.Undefined)

  test("a timeout is longer than zero, or Duration.Inf for none"):
    assert(isTimeout(1.nano) && isTimeout(1.minute) && isTimeout(Duration.Inf))
    refused.foreach(d => assert(!isTimeout(d), d))

  test("a server arms a timeout's nanoseconds, and nothing (0) for none or one refused"):
    assertEquals(timeoutNanos(1.nano), 1L)
    assertEquals(timeoutNanos(90.seconds), 90_000_000_000L)
    assertEquals(timeoutNanos(Duration.Inf), 0L)
    refused.foreach(d => assertEquals(timeoutNanos(d), 0L, d))

  test("a keep-alive period is refused unless it is a timeout"):
    assertEquals(keepAliveNanos(15.seconds), 15_000_000_000L)
    assertEquals(keepAliveNanos(Duration.Inf), 0L)
    refused.foreach(d => intercept[IllegalArgumentException](keepAliveNanos(d)))
