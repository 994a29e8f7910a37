package rapier.perf

class StatsTest extends munit.FunSuite:
  test("an interval is the geometric mean of the ratios with Student's t on their logarithms"):
    val i = Interval.of(List(0.9, 1.0, 1.1)).get
    val logs = List(0.9, 1.0, 1.1).map(math.log)
    val mean = logs.sum / 3
    val sd = math.sqrt(logs.map(x => (x - mean) * (x - mean)).sum / 2)
    assertEqualsDouble(i.center, math.exp(mean), 1e-12)
    assertEqualsDouble(i.low, math.exp(mean - 4.303 * sd / math.sqrt(3)), 1e-12)
    assertEqualsDouble(i.high, math.exp(mean + 4.303 * sd / math.sqrt(3)), 1e-12)
    assertEquals(i.rounds, 3)
    assert(i.low < 0.9 && i.high > 1.1, i)

  test("one round is an interval of one point; no round, none; nonsense ratios are left out"):
    assertEquals(Interval.of(List(0.8)), Some(Interval(0.8, 0.8, 0.8, 1)))
    assertEquals(Interval.of(Nil), None)
    assertEquals(Interval.of(List(0.0, -1.0, Double.PositiveInfinity)), None)
    assertEquals(Interval.tQuantile975(4), 2.776)
    assertEquals(Interval.tQuantile975(100), 1.96)

  test("two servers measured apart: the ratio of their geometric means, with Welch's interval on the logarithms"):
    val a = List(400.0, 420.0, 380.0, 410.0)
    val b = List(100.0, 90.0, 110.0)
    val (la, lb) = (a.map(math.log), b.map(math.log))
    def variance(xs: List[Double]) =
      val m = xs.sum / xs.size; xs.map(x => (x - m) * (x - m)).sum / (xs.size - 1)
    val (va, vb) = (variance(la) / 4, variance(lb) / 3)
    val df = (va + vb) * (va + vb) / (va * va / 3 + vb * vb / 2)
    val center = la.sum / 4 - lb.sum / 3
    val half = Interval.tQuantile975(df.toInt) * math.sqrt(va + vb)
    val i = Interval.between(a, b).get
    assertEqualsDouble(i.center, math.exp(center), 1e-12)
    assertEqualsDouble(i.low, math.exp(center - half), 1e-12)
    assertEqualsDouble(i.high, math.exp(center + half), 1e-12)
    assertEquals(i.rounds, 3)
    // About 4.04 [3.09–5.26]: Welch's 2.55 degrees of freedom take the t quantile of 2.
    assertEquals(Interval.tQuantile975(df.toInt), 4.303)
    // Steady samples give a point; one value on a side gives the ratio alone; no value, nothing.
    val steady = Interval.between(List(300.0, 300.0), List(100.0, 100.0)).get
    assertEqualsDouble(steady.low, 3.0, 1e-12)
    assertEqualsDouble(steady.high, 3.0, 1e-12)
    assertEquals(steady.rounds, 2)
    assertEquals(Interval.between(List(300.0, 330.0), List(100.0)).map(_.rounds), Some(1))
    assertEquals(Interval.between(List(300.0), Nil), None)

  test("a difference is the mean of the rounds' differences in milliseconds, with Student's t"):
    val ds = List(1.5, -0.5, 2.0, 0.0)
    val mean = ds.sum / 4
    val sd = math.sqrt(ds.map(x => (x - mean) * (x - mean)).sum / 3)
    val d = Difference.of(ds).get
    assertEqualsDouble(d.meanMs, 0.75, 1e-12)
    assertEqualsDouble(d.lowMs, 0.75 - 3.182 * sd / 2, 1e-12)
    assertEqualsDouble(d.highMs, 0.75 + 3.182 * sd / 2, 1e-12)
    assertEquals(d.rounds, 4)
    // Negative differences are kept (a library faster than its twin); one round is a point; nonsense is left out
    assertEquals(Difference.of(List(-2.0)), Some(Difference(-2.0, -2.0, -2.0, 1)))
    assertEquals(Difference.of(List(Double.NaN, Double.PositiveInfinity)), None)
    assertEquals(report.StudyTables.difference(Difference(1.234, -0.4, 2.867, 3)), "+1.23 ms [-0.40–+2.87]")

  test("the A/A band: the interval of the A/A ratios' mean, made symmetric around 1"):
    val aa = List(1.02, 0.99, 1.01, 1.0)
    val i = Interval.of(aa).get
    val half = math.max(1 - i.low, i.high - 1)
    assertEquals(Band.of(aa), Some(Band(1 - half, 1 + half, 4)))
    // Two JVMs a steady 3% apart: the band holds that offset, around 1.
    val offset = Band.of(List(1.03, 1.03, 1.03)).get
    assertEqualsDouble(offset.low, 0.97, 1e-9)
    assertEqualsDouble(offset.high, 1.03, 1e-9)
    assertEqualsDouble(Band(0.97, 1.03, 2).halfWidth, 0.03, 1e-12)
    assertEquals(Band.of(Nil), None)

  test("a ratio is within noise only when its whole interval lies inside the band"):
    val aa = List(0.97, 1.03, 1.0, 0.98, 1.02)
    assert(Compared.of(List(1.0, 1.01, 0.99), aa).get.withinNoise)
    // Its center inside the band, but not its interval: a number, with its interval.
    assert(!Compared.of(List(0.9, 1.1, 1.0), aa).get.withinNoise)
    assert(!Compared.of(List(0.85, 0.86, 0.84), aa).get.withinNoise)
    // No A/A pair, no band: never within noise.
    assert(!Compared.of(List(1.0, 1.0), Nil).get.withinNoise)
