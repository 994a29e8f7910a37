package rapier.perf

import rapier.perf.report.{Baseline, Csv}

class ResultsTest extends munit.FunSuite:
  private def row(
      server: String,
      round: Int,
      throughput: Double,
      status: String = Status.Ok,
      cpu: Option[Double] = Some(10.0)
  ) =
    Row(
      round,
      server,
      "Rapier",
      "SimpleGet",
      64,
      status,
      "",
      (throughput * 10).toLong,
      10,
      throughput,
      Some(LatencyMs(1, 1, 1, 2, 3, 4, 5)),
      0,
      Some(1.0),
      Some(0.5),
      false,
      cpu,
      Some(1000),
      Some(3L),
      Some(4L),
      Some(300),
      5
    )

  private val twins = Map("lib" -> "van")

  private def assertSpread(actual: Option[Spread], mean: Double, min: Double, max: Double)(using munit.Location) =
    val s = actual.getOrElse(fail("no spread"))
    assertEqualsDouble(s.mean, mean, 1e-9)
    assertEqualsDouble(s.min, min, 1e-9)
    assertEqualsDouble(s.max, max, 1e-9)

  test("summaries: means over valid rounds, ratios paired within each round"):
    val rows = List(
      row("van", 1, 100),
      row("lib", 1, 90, cpu = Some(12.5)),
      row("van", 2, 200),
      row("lib", 2, 160, cpu = Some(20.0)),
      row("van", 3, 100),
      row("lib", 3, 999, status = Status.Invalid)
    )
    val s = Summaries.of(rows, twins.get).find(_.server == "lib").get
    assertEquals((s.validRounds, s.rounds), (2, 3))
    assertEquals(s.throughput, Some(Spread(125.0, 90.0, 160.0)))
    assertSpread(s.ratio, 0.85, 0.8, 0.9)
    assertSpread(s.cpuRatio, 0.65, 0.5, 0.8)
    // Best over best, whichever rounds: 160 (round 2) over 200 (round 2 of the twin).
    assertEquals(s.bestRatio, Some(0.8))
    assertEquals(s.status, Status.Ok)

  test("a round whose vanilla run is invalid gives no ratio"):
    val rows = List(row("van", 1, 100, status = Status.Invalid), row("lib", 1, 90))
    assertEquals(Summaries.of(rows, twins.get).find(_.server == "lib").get.ratio, None)

  test("status over rounds: n/a, invalid or failed when no round is valid"):
    def status(statuses: String*) =
      Summaries.of(statuses.zipWithIndex.map((st, i) => row("lib", i + 1, 1, st)).toList, twins.get).head.status
    assertEquals(status(Status.NotApplicable, Status.NotApplicable), Status.NotApplicable)
    assertEquals(status(Status.Invalid, Status.Failed), Status.Invalid)
    assertEquals(status(Status.Failed), Status.Failed)
    assertEquals(status(Status.Failed, Status.Ok), Status.Ok)

  test("results survive a trip through JSON"):
    val rows = List(row("van", 1, 100), row("lib", 1, 90))
    val facts = MachineFacts(2, "cpu", 1.5, "linux", "6", "jdk", "wrk", "0", "1", true)
    val results = RunResults(
      Meta("a", "b", "./perf", facts, 10, 5, 1, List(64), Nil, None),
      rows,
      Summaries.of(rows, twins.get)
    )
    assertEquals(RunResults.fromJson(RunResults.toJson(results)), Right(results))
    assert(RunResults.fromJson("{}".getBytes).isLeft)

  test("baseline: a ratio that drops past the limit is a regression"):
    def summary(server: String, ratio: Double) =
      Summaries.of(
        List(row("van", 1, 100), row(server, 1, ratio * 100)),
        Map(server -> "van").get
      ).find(_.server == server).get
    val before = List(summary("lib", 0.95), summary("other", 0.5))
    val after = List(summary("lib", 0.80), summary("other", 0.49), summary("new", 0.1))
    val (regressions, compared) = Baseline.compare(before, after, maxRegressionPercent = 10)
    assertEquals(compared, 2)
    assertEquals(regressions.map(_.key), List("lib|SimpleGet|64"))
    assert(regressions.head.toString.contains("95.0% → 80.0% of vanilla"), regressions.head.toString)
    assertEquals(Baseline.compare(before, after, maxRegressionPercent = 20)._1, Nil)

  test("CSV: one line per run, quoted where a field needs it"):
    val csv = Csv.render(List(row("lib", 1, 90).copy(note = "errors: a, \"b\"")))
    val lines = csv.linesIterator.toList
    assertEquals(lines.size, 2)
    assertEquals(lines.head.split(',').length, Csv.header.size)
    assert(lines(1).endsWith(",\"errors: a, \"\"b\"\"\""), lines(1))
