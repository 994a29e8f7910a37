package rapier.testkit

import io.netty.buffer.PooledByteBufAllocator

class LeakDetectionTest extends munit.FunSuite:
  LeakDetection.install()

  test("a buffer dropped without release is reported as a leak"):
    LeakDetection.clear()
    leakOne()
    val leaks = LeakDetection.leaksSoFar()
    assert(leaks.exists(_.contains("LEAK")), leaks)
    // Where it was created, and how to see where it was retained and released
    assert(leaks.exists(l => l.contains("leakOne") && l.contains("RAPIER_LEAK_RECORDS=8")), leaks)
    LeakDetection.clear()

  /** In a method of its own, so that no frame of the test keeps the buffer reachable. */
  private def leakOne(): Unit =
    val leaked = PooledByteBufAllocator.DEFAULT.buffer(64)
    leaked.writeInt(42)

  test("released buffers are not reported"):
    LeakDetection.clear()
    for _ <- 1 to 100 do PooledByteBufAllocator.DEFAULT.buffer(64).release()
    assertEquals(LeakDetection.leaksSoFar(), Nil)
