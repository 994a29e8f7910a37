package rapier.server.spi

import java.util.concurrent.atomic.LongAdder

class BodyArrayTest extends munit.FunSuite:
  private def take(into: BodyArray, bytes: Array[Byte]): Unit =
    assertEquals(into.refusal(bytes.length), null)
    System.arraycopy(bytes, 0, into.room(bytes.length), into.size, bytes.length)
    into.added(bytes.length)

  test("a declared length is one array of that size, counted from the start, and handed over as it is"):
    val held = LongAdder()
    val into = BodyArray(10, 100, held)
    assertEquals(held.sum, 10L)
    take(into, "hello".getBytes)
    val room = into.room(5)
    take(into, "world".getBytes)
    assert(into.room(0) eq room, "no copy while the body fits its declared length")
    val body = into.result()
    assert(body eq room, "the array is the body")
    assertEquals(String(body), "helloworld")
    assertEquals(held.sum, 10L)

  test("without a declared length the array doubles, never past the limit, and the result is counted by its size"):
    val held = LongAdder()
    val into = BodyArray(-1, 600, held)
    assertEquals(held.sum, 256L)
    take(into, Array.fill(300)(1.toByte))
    assertEquals(held.sum, 512L, "grown to twice its size")
    take(into, Array.fill(250)(2.toByte))
    assertEquals(held.sum, 600L, "twice 512 would pass the limit of 600")
    val body = into.result()
    assertEquals(body.length, 550)
    assertEquals(body(299), 1.toByte)
    assertEquals(body(549), 2.toByte)
    assertEquals(held.sum, 550L, "the result, by its size")

  test("bytes past the limit or past the declared length are refused, with the status each calls for"):
    val held = LongAdder()
    val limited = BodyArray(-1, 8, held)
    take(limited, Array.fill(8)(0.toByte))
    assertEquals(limited.refusal(1), Refusals.bodyTooLarge(8))
    val declared = BodyArray(4, 100, held)
    take(declared, Array.fill(3)(0.toByte))
    assertEquals(declared.refusal(1), null)
    assertEquals(declared.refusal(2), Refusals.BodyLongerThanLength)
    assertEquals(
      BodyArray(1000, 100, held).refusal(101),
      Refusals.bodyTooLarge(100),
      "a declared length past the limit"
    )

  test("drop lets go of everything counted, and an empty body is an empty array"):
    val held = LongAdder()
    val dropped = BodyArray(-1, 1000, held)
    take(dropped, Array.fill(700)(0.toByte))
    dropped.drop()
    assertEquals(held.sum, 0L)
    val empty = BodyArray(-1, 1000, held)
    assertEquals(empty.result().length, 0)
    assertEquals(held.sum, 0L)
