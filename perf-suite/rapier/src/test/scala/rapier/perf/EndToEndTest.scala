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
      "2",
      "--warmup",
      "1",
      "--out",
      out.toString
    ) ++ extra)

  test("a smoke run writes results.csv, results.json and report.html, and they read back"):
    requireWrk()
    val out = Files.createTempDirectory("perf-e2e")
    assertEquals(suite(out), 0)
    val results = RunResults.fromJson(Files.readAllBytes(out.resolve("results.json"))).fold(fail(_), identity)
    assertEquals(
      results.rows.map(r => (r.server, r.scenario)).toSet,
      Set(
        ("netty.Vanilla", "SimpleGet"),
        ("netty.Vanilla", "PostBytes"),
        ("netty.future.Rapier", "SimpleGet"),
        ("netty.future.Rapier", "PostBytes")
      )
    )
    results.rows.foreach(r => assertEquals(r.status, Status.Ok, r.note))
    results.rows.foreach(r => assert(r.requests > 0 && r.allocatedBytesPerRequest.exists(_ > 0), r))
    val rapier = results.summaries.filter(_.server == "netty.future.Rapier")
    assertEquals(rapier.size, 2)
    assert(rapier.forall(s => s.ratio.exists(_.mean > 0) && s.twin.contains("netty.Vanilla")), rapier)
    assertEquals(Files.readAllLines(out.resolve("results.csv")).size, 5)
    val html = Files.readString(out.resolve("report.html"))
    assert(html.contains("<svg") && html.contains("netty.future.Rapier"), html.take(500))

  test("--baseline fails against a ratio no run can reach and passes against one no run can fall below"):
    requireWrk()
    val first = Files.createTempDirectory("perf-e2e-base")
    assertEquals(suite(first, "-m", "SimpleGet"), 0)
    val base = RunResults.fromJson(Files.readAllBytes(first.resolve("results.json"))).fold(fail(_), identity)
    // Ratios on a shared machine swing by a factor of several between runs, so the baselines here are set far
    // outside anything a real run can reach: one claiming 1000x vanilla (every run regressed against it) and one
    // claiming 1/1000 (no run regressed against it).
    def claiming(ratio: Double): Path =
      val claimed = base.copy(summaries = base.summaries.map(s => s.copy(ratio = s.ratio.map(_.copy(mean = ratio)))))
      Files.write(first.resolve(s"claiming-$ratio.json"), RunResults.toJson(claimed))
    val second = Files.createTempDirectory("perf-e2e-gate")
    assertEquals(suite(second, "-m", "SimpleGet", "--baseline", claiming(1000).toString, "--max-regression", "50"), 3)
    assertEquals(suite(second, "-m", "SimpleGet", "--baseline", claiming(0.001).toString, "--max-regression", "50"), 0)

  test("a missing baseline file is a clear error, not a crash"):
    requireWrk()
    val out = Files.createTempDirectory("perf-e2e-missing")
    assertEquals(Main.run(List("report", out.resolve("nope.json").toString)), 2)
