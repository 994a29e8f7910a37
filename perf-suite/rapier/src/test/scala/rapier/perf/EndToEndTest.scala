package rapier.perf

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * The suite for real, kept short: two servers, two scenarios, two seconds each. No timing is asserted; what is
 * checked is that everything runs, answers correctly and writes reports that read back.
 */
class EndToEndTest extends munit.FunSuite:
  override def munitTimeout: Duration = 10.minutes

  private def requireWrk(): Unit =
    assume(Wrk.version.isDefined, "wrk is not installed (apt-get install wrk); .ci/run installs it for CI")

  private def suite(out: Path, extra: String*): Int =
    Main.run(List(
      "-s",
      "netty.future.Rapier",
      "-m",
      "SimpleGet,PostBytes",
      "-u",
      "4",
      "-d",
      "1",
      "--warmup",
      "1",
      "-r",
      "2",
      "--out",
      out.toString
    ) ++ BriefRuns.cliOptions ++ extra)

  /**
   * A baseline claiming `ratio` for each of Rapier's ratios in a committed run, keyed to this test's runs. Ratios on a
   * shared machine swing by a factor of several between runs, so the claims are set far outside anything a real run
   * can reach: 1000x vanilla (every run regressed against it) or 1/1000 (no run regressed against it).
   */
  private def claiming(ratio: Double): Path =
    val base = RunResults.read(Path.of("../../docs/perf/2026-11-23-default/results.json.gz")).fold(fail(_), identity)
    val claims =
      base.summaries.filter(_.ratio.isDefined).map(s => s.copy(users = 4, ratio = s.ratio.map(_.copy(mean = ratio))))
    assertEquals(claims.map(_.key).toSet, Set("netty.future.Rapier|SimpleGet|4", "netty.future.Rapier|PostBytes|4"))
    Files.write(Files.createTempFile("claiming", ".json"), RunResults.toJson(base.copy(summaries = claims)))

  test("a smoke run writes results.csv, results.json and report.html, they read back, and it passes a baseline"):
    requireWrk()
    val out = Files.createTempDirectory("perf-e2e")
    assertEquals(suite(out, "--baseline", claiming(0.001).toString, "--max-regression", "50"), 0)
    val results = RunResults.fromJson(Files.readAllBytes(out.resolve("results.json"))).fold(fail(_), identity)
    // Each scenario: the twin, Rapier and the twin's second JVM (the A/A pair), measured together.
    assertEquals(
      results.rows.map(r => (r.server, r.scenario, r.replica)),
      List(
        ("netty.Vanilla", "SimpleGet", 1),
        ("netty.future.Rapier", "SimpleGet", 1),
        ("netty.Vanilla", "SimpleGet", 2),
        ("netty.Vanilla", "PostBytes", 1),
        ("netty.future.Rapier", "PostBytes", 1),
        ("netty.Vanilla", "PostBytes", 2)
      )
    )
    // Two rounds of one second: a slice per server per round, each with its figures.
    results.rows.foreach(r => assertEquals(r.slices.map(_.round), List(0, 1), r))
    results.rows.foreach(r => assert(r.slices.forall(s => s.throughput > 0 && s.cpuMsPer1000.exists(_ > 0)), r))
    results.rows.foreach(r => assertEquals(r.status, Status.Ok, r.note))
    results.rows.foreach(r => assert(r.requests > 0 && r.allocatedBytesPerRequest.exists(_ > 0), r))
    // Resident memory once started, before any load, and its peak over the run, which includes it.
    results.rows.foreach { r =>
      val (ready, peak) = (r.readyRssMiB.getOrElse(fail(s"no ready RSS: $r")), r.peakRssMiB.get)
      assert(ready > 10 && ready <= peak, s"ready $ready MiB, peak $peak MiB")
    }
    // The warm-up second by second, and the server's own record of itself over the test, phases marked.
    results.rows.foreach { r =>
      assertEquals(r.warmupThroughput.size, r.warmupSeconds, r)
      val t = r.timeline.getOrElse(fail(s"no timeline: $r"))
      assert(t.cpuPercent.size >= 8 && t.heapMiB.exists(_ > 0) && t.rssMiB.exists(_ > 0), t)
      assert(t.marks.map(_.label).containsSlice(List("warm-up", "measured", "end of measurement")), t.marks)
    }
    val rapier = results.summaries.filter(_.server == "netty.future.Rapier")
    assertEquals(rapier.size, 2)
    assert(rapier.forall(s => s.ratio.exists(_.mean > 0) && s.twin.contains("netty.Vanilla")), rapier)
    // Every ratio read against the twin's A/A band.
    assert(rapier.forall(_.compared.exists(_.band.isDefined)), rapier)
    assert(results.summaries.filter(_.server == "netty.Vanilla").forall(_.noise.isDefined))
    if Oha.executable.isDefined then
      results.rows.foreach { r =>
        val f = r.fixedRate.getOrElse(fail(s"no fixed-rate window: $r"))
        assert(f.requests > 0 && f.latencyMs.p9999 > 0 && f.cpuMsPer1000.exists(_ > 0), f)
      }
      // A library and its twin at the same rate in a round.
      for r <- results.rows.filter(_.server == "netty.future.Rapier") do
        val twin = results.rows.find(v => v.server == "netty.Vanilla" && v.scenario == r.scenario && v.start == r.start)
        assertEquals(r.fixedRate.map(_.targetRate), twin.flatMap(_.fixedRate.map(_.targetRate)))
    assertEquals(Files.readAllLines(out.resolve("results.csv")).size, 7)
    assert(Files.readString(out.resolve("summary.md")).contains("## Noise floor"))
    val html = Files.readString(out.resolve("report.html"))
    assert(html.contains("<svg") && html.contains("netty.future.Rapier"), html.take(500))

  test("--profile: CPU and allocations under wrk, and CPU at the group's fixed rate under oha, for every server"):
    requireWrk()
    assume(Oha.executable.isDefined, "oha is not installed; .ci/run builds it for CI")
    val out = Files.createTempDirectory("perf-e2e-profile")
    assertEquals(suite(out, "-m", "SimpleGet", "-r", "1", "--profile"), 0)
    val results = RunResults.fromJson(Files.readAllBytes(out.resolve("results.json"))).fold(fail(_), identity)
    assertEquals(results.rows.size, 3)
    for r <- results.rows do
      val p = r.profile.getOrElse(fail(s"${r.server}: no profile"))
      assertEquals(p.note, "", r.server)
      for graph <- List(p.cpuFlamegraph, p.allocFlamegraph, p.fixedRateCpuFlamegraph) do
        assert(Files.size(out.resolve(graph.getOrElse(fail(s"${r.server}: a flame graph is missing")))) > 0)
      assert(p.cpuSamples > 0 && p.fixedRateCpuSamples.exists(_ > 0), s"${r.server}: $p")
      val marks = r.timeline.getOrElse(fail(s"no timeline: $r")).marks.map(_.label)
      assert(marks.containsSlice(List("allocation profile", "CPU profile at the fixed rate")), marks)
    assert(Files.readString(out.resolve("report.html")).contains("CPU at the fixed rate"))

  test("--baseline fails a run against a ratio no run can reach"):
    requireWrk()
    val out = Files.createTempDirectory("perf-e2e-gate")
    // One round and no fixed-rate window: the gate reads ratios only
    val gate = List("--baseline", claiming(1000).toString, "--max-regression", "50")
    assertEquals(suite(out, List("-m", "SimpleGet", "-r", "1", "--rate", "off") ++ gate*), 3)
    // The run is written whole before the gate fails it
    assert(RunResults.fromJson(Files.readAllBytes(out.resolve("results.json"))).isRight)

  test("a missing baseline file is a clear error, not a crash"):
    requireWrk()
    val out = Files.createTempDirectory("perf-e2e-missing")
    assertEquals(Main.run(List("report", out.resolve("nope.json").toString)), 2)

  test("attack: each server and its twin measured with and without hostile clients, and still answering"):
    requireWrk()
    val out = Files.createTempDirectory("perf-e2e-attack")
    val args = List("attack", "-s", "netty.future.Rapier", "--hostile", "5", "-d", "1", "--warmup", "1", "--out")
    assertEquals(Main.run(args :+ out.toString), 0)
    val summary = Files.readString(out.resolve("summary.md"))
    for server <- List("netty.Vanilla", "netty.future.Rapier") do
      val row = summary.linesIterator.find(_.startsWith(s"| `$server`")).getOrElse(fail(s"no row for $server"))
      assert(row.contains("| yes |"), row)
