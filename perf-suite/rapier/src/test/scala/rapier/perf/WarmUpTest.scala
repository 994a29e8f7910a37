package rapier.perf

class WarmUpTest extends munit.FunSuite:
  test("stable: the last two seconds within 5% of each other"):
    assert(WarmUp.stable(List(10.0, 50, 100, 103)))
    assert(!WarmUp.stable(List(10.0, 50, 100, 110)))
    assert(!WarmUp.stable(List(100.0)))
    assert(!WarmUp.stable(List(0.0, 0.0)))

  test("steady after: the second from which throughput stayed within 10% of where it settled"):
    // A JIT climbing for four seconds, then steady around 100.
    assertEquals(WarmUp.steadyAfter(List(20.0, 40, 60, 80, 95, 102, 99, 101)), Some(4.0))
    // Steady from the start.
    assertEquals(WarmUp.steadyAfter(List(100.0, 101, 99)), Some(0.0))
    // A dip after reaching the level restarts the count.
    assertEquals(WarmUp.steadyAfter(List(100.0, 100, 60, 100, 101, 100)), Some(3.0))
    // Not settled at the end: none.
    assertEquals(WarmUp.steadyAfter(List(20.0, 40, 60, 80)), None)

  test("steady needs the JIT quiet as well: a server still compiling is still climbing"):
    assert(!WarmUp.steady(List(100.0, 101), List(300.0, 200)))
    assert(WarmUp.steady(List(100.0, 101), List(300.0, 10)))
    // Throughput settled after one second, the JIT after three.
    assertEquals(WarmUp.steadyAfter(List(50.0, 100, 101, 100, 100), List(900.0, 400, 200, 10, 5)), Some(3.0))
    assertEquals(WarmUp.steadyAfter(List(100.0, 101), List(300.0, 200)), None)
    assertEquals(WarmUp.level(List(10.0, 100, 90, 95)), Some(95.0))
