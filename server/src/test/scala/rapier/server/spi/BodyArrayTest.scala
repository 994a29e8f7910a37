package rapier.server.spi

class BodyArrayTest extends munit.FunSuite:
  private def take(into: BodyArray, bytes: Array[Byte]): Unit =
    assertEquals(into.reserve(bytes.length), null)
    System.arraycopy(bytes, 0, into.array, into.size, bytes.length)
    into.added(bytes.length)

  private def body(declared: Long, limit: Long, budget: BodyBudget = BodyBudget(1L << 30)): BodyArray =
    val into = BodyArray(limit, budget)
    into.begin(declared)
    into

  test("a small declared length is one array of that size, taken at the first bytes and handed over as it is"):
    val budget = BodyBudget(1000)
    val into = body(10, 100, budget)
    assertEquals(budget.held, 0L, "nothing is taken before a byte arrives")
    take(into, "hello".getBytes)
    assertEquals(budget.held, 10L)
    val array = into.array
    take(into, "world".getBytes)
    assert(into.array eq array, "no copy while the body fits its declared length")
    val result = into.result()
    assert(result eq array, "the array is the body")
    assertEquals(String(result), "helloworld")
    assertEquals(budget.held, 10L, "the result stays counted until the caller gives it back")

  test("a large declared length grows with the bytes that arrived, and is taken whole once they are a sixteenth of it"):
    val budget = BodyBudget(1L << 30)
    val declared = 10L * 1024 * 1024
    val into = body(declared, declared, budget)
    take(into, Array.fill(1)(1.toByte))
    assertEquals(budget.held, BodyArray.WholeAtOnce.toLong, "one byte announcing 10 MiB holds 64 KiB")
    take(into, Array.fill(100 * 1024)(2.toByte))
    assertEquals(budget.held, 2L * BodyArray.WholeAtOnce, "doubled, as what arrived is a small part of it")
    take(into, Array.fill(600 * 1024)(3.toByte))
    assertEquals(budget.held, declared, "a sixteenth arrived: the declared length whole")
    take(into, Array.fill((declared - 700 * 1024 - 1).toInt)(4.toByte))
    val result = into.result()
    assertEquals(result.length.toLong, declared)
    assertEquals(result(0), 1.toByte)
    assertEquals(result(1 + 100 * 1024), 3.toByte)
    assertEquals(result(result.length - 1), 4.toByte)

  test("without a declared length the array doubles, never past the limit, and the result is counted by its size"):
    val budget = BodyBudget(10000)
    val into = body(-1, 600, budget)
    take(into, Array.fill(100)(0.toByte))
    assertEquals(budget.held, 256L)
    take(into, Array.fill(200)(1.toByte))
    assertEquals(budget.held, 512L, "grown to twice its size")
    take(into, Array.fill(250)(2.toByte))
    assertEquals(budget.held, 600L, "twice 512 would pass the limit of 600")
    val result = into.result()
    assertEquals(result.length, 550)
    assertEquals(result(299), 1.toByte)
    assertEquals(result(549), 2.toByte)
    assertEquals(budget.held, 550L, "the result, by its size")

  test("a body sent a byte at a time is copied in a few steps, not once per byte"):
    val into = body(-1, 1 << 20)
    var arrays = 0
    var last: Array[Byte] | Null = null
    for i <- 0 until (1 << 20) do
      take(into, Array(i.toByte))
      if !(into.array eq last) then
        arrays += 1
        last = into.array
    assert(arrays <= 13, s"$arrays arrays for 1 MiB")
    assertEquals(into.result()(12345), 12345.toByte)

  test("bytes past the limit, the declared length or the budget are refused, with the status each calls for"):
    val limited = body(-1, 8)
    take(limited, Array.fill(8)(0.toByte))
    assertEquals(limited.reserve(1), Refusals.bodyTooLarge(8))
    val declared = body(4, 100)
    take(declared, Array.fill(3)(0.toByte))
    assertEquals(declared.reserve(1), null)
    assertEquals(declared.reserve(2), Refusals.BodyLongerThanLength)
    assertEquals(body(1000, 100).reserve(101), Refusals.bodyTooLarge(100), "a declared length past the limit")
    val budget = BodyBudget(100)
    val first = body(80, 100, budget)
    take(first, Array.fill(1)(0.toByte))
    val second = body(40, 100, budget)
    assertEquals(second.reserve(1), Refusals.Busy, "80 bytes held of a budget of 100: 40 more can't be")
    assertEquals(budget.held, 80L, "a refused array takes nothing")
    first.drop()
    assertEquals(second.reserve(1), null)
    assertEquals(Refusals.Busy.problem.status.code, 503)
    assertEquals(Refusals.Busy.problem.headers.map(h => h.name -> h.value), List("Retry-After" -> "1"))

  test("drop lets go of everything counted, begin starts over, and an empty body is an empty array"):
    val budget = BodyBudget(10000)
    val into = body(-1, 1000, budget)
    take(into, Array.fill(700)(0.toByte))
    into.drop()
    assertEquals(budget.held, 0L)
    take(into, Array.fill(10)(0.toByte))
    into.begin(5)
    assertEquals(budget.held, 0L, "begin lets go of the body before")
    assertEquals(into.size, 0)
    assertEquals(body(-1, 1000, budget).result().length, 0)
    assertEquals(budget.held, 0L)
