package rapier.perf

import rapier.perf.report.{Html, Markdown}
import rapier.testkit.HeadlessChromium

import java.nio.file.Files
import scala.concurrent.duration.*

/** The HTML report: what it contains, and that a real browser renders its charts. */
class ReportTest extends munit.FunSuite:
  override def munitTimeout: Duration = 3.minutes

  /** A run of five slices, the throughput of each `throughput` times its factor. */
  private def row(
      server: String,
      impl: String,
      scenario: String,
      round: Int,
      throughput: Double,
      factors: List[Double] = List.fill(5)(1.0)
  ) =
    Row(
      round,
      server,
      impl,
      scenario,
      64,
      Status.Ok,
      "",
      1000,
      10,
      throughput,
      Some(LatencyMs(0.5, 0.6, 0.8, 1.5, 3, 9, 12)),
      0,
      Some(0.99),
      Some(0.6),
      false,
      Some(9.0),
      Some(1400),
      Some(2L),
      Some(5L),
      Some(380),
      6,
      slices = factors.zipWithIndex.map((f, i) => Slice(i, throughput * f, Some(9.0), None))
    )

  private val twins = Map(
    "netty.future.Rapier" -> "netty.Vanilla",
    "netty.future.RapierLog" -> "netty.Vanilla",
    "netty.future.Tapir<x>" -> "netty41.Vanilla"
  )

  private val sample: RunResults =
    val servers = List(
      ("netty.Vanilla", "Vanilla", 100000.0),
      ("netty.future.Rapier", "Rapier", 95000.0),
      ("netty.future.RapierLog", "Rapier", 100500.0),
      ("netty41.Vanilla", "Vanilla", 110000.0),
      ("netty.future.Tapir<x>", "Tapir", 30000.0)
    )
    val rows =
      for
        round <- List(1, 2)
        scenario <- List("SimpleGet", "PostBytes")
        (s, impl, t) <- servers
      yield row(s, impl, scenario, round, t * (1 + round / 100.0))
    // The A/A runs: each vanilla server's second JVM, a little off its first from slice to slice.
    val aa =
      for
        round <- List(1, 2)
        scenario <- List("SimpleGet", "PostBytes")
        (s, impl, t) <- servers if impl == "Vanilla"
      yield row(s, impl, scenario, round, t * (1 + round / 100.0), List(1.01, 0.99, 1.0, 1.02, 0.98))
        .copy(replica = 2)
    val facts = MachineFacts(2, "AMD EPYC", 23.5, "Linux amd64", "6.1", "OpenJDK 17", "wrk 4.1.0", "0", "1", true)
    RunResults(
      Meta(
        "2026-11-22T10:00:00Z",
        "2026-11-22T10:10:00Z",
        "./perf -r 2",
        facts,
        10,
        5,
        2,
        List(64),
        List("-Xmx1g"),
        None
      ),
      rows ++ aa,
      Summaries.of(rows ++ aa, twins.get),
      Summaries.peers(rows, List("netty.future.Rapier" -> "netty.future.Tapir<x>"))
    )

  test("the report holds every section, and escapes what it prints"):
    val html = Html.render(sample)
    for id <- List(
        "machine",
        "notes",
        "overview",
        "noise",
        "overhead",
        "efficiency",
        "throughput",
        "latency",
        "cost",
        "warm-up",
        "timeline",
        "peers",
        "figures",
        "runs",
        "method"
      )
    do
      assert(html.contains(s"""id="$id""""), id)
    assert(html.contains("netty.future.Tapir&lt;x&gt;") && !html.contains("Tapir<x>"))
    assert(html.contains("95%"), "Rapier's ratio to its twin")
    assert(!html.contains("http://") || html.contains("http://www.w3.org/2000/svg"), "no external resources")

  test("summary.md: a ratio table and an allocation table, a row per library server and a column per scenario"):
    val md = Markdown.render(sample)
    assert(md.startsWith("```sh\n./perf -r 2\n```"), md.take(100))
    assert(md.contains("| server | compared with | SimpleGet | PostBytes |"), md)
    // Rapier at 0.95 in every slice, outside the A/A band of ±1.1%; RapierLog at 1.005, inside it.
    assert(md.contains("| `netty.Vanilla` | ±1.1% [0.99–1.01] | ±1.1% [0.99–1.01] |"), md)
    assert(
      md.contains(
        "| `netty.future.Rapier` | `netty.Vanilla` | 0.95 [0.95–0.95] · CPU within noise | 0.95 [0.95–0.95] · CPU within noise |"
      ),
      md
    )
    assert(
      md.contains(
        "| `netty.future.RapierLog` | `netty.Vanilla` | within noise · CPU within noise | within noise · CPU within noise |"
      ),
      md
    )
    // Rapier and the peer, each 1% apart between its two starts: independent samples, so an interval around 95/30.
    assert(md.contains("| `netty.future.Rapier` | `netty.future.Tapir<x>` | 3.17 [3.15–3.18] | 3.17 [3.15–3.18] |"), md)
    assert(
      md.contains("| `netty.future.Tapir<x>` | `netty41.Vanilla` | +0 (1,400 vs 1,400) | +0 (1,400 vs 1,400) |"),
      md
    )
    assert(md.contains("None: every run was valid"), md)
    val loadBound = sample.copy(rows = sample.rows.map(r => if r.start == 2 then r.copy(loadBound = true) else r))
    assert(Markdown.render(loadBound).contains("- start 2, `netty.Vanilla` · SimpleGet: load-bound"))

  test("summary.md: a fixed rate that kept a server's CPU 90% busy or more is said to be near saturation"):
    // netty.Vanilla and Rapier busy at the rate, the other servers not
    def busy(server: String) = server match
      case "netty.Vanilla" => 0.94
      case "netty.future.Rapier" => 0.97
      case _ => 0.5
    val rows = sample.rows.map(r =>
      r.copy(
        slices = r.slices.map(_.copy(fixedRateCpuMsPer1000 = Some(18.0))),
        fixedRate = Some(
          FixedRateRun(5000, 5000, 10000, 0, LatencyMs(1, 2, 3, 4, 5, 6, 7), Some(18.0), Some(busy(r.server)), None, "")
        )
      )
    )
    val md = Markdown.render(sample.copy(rows = rows, summaries = Summaries.of(rows, twins.get)))
    assert(md.contains("A server *near saturation* kept 90% or more of its CPU busy at that rate"), md)
    assert(
      md.contains(
        "| `netty.future.Rapier` | `netty.Vanilla` | within noise at 5,000/s, near saturation (97% of its CPU) |"
      ),
      md
    )
    assert(md.contains("| `netty.future.RapierLog` | `netty.Vanilla` | within noise at 5,000/s |"), md)
    assert(md.contains("| `netty.Vanilla` | 18.00 ms/1k, near saturation (94% of its CPU); "), md)
    assert(md.contains("| `netty41.Vanilla` | 18.00 ms/1k; "), md)

  test("summary.md: peak resident memory over the twin's, with what each had once started"):
    val measured = sample.copy(rows = sample.rows.map { r =>
      if r.server == "netty.future.Rapier" then r.copy(peakRssMiB = Some(418), readyRssMiB = Some(130))
      else if r.server == "netty.Vanilla" then r.copy(readyRssMiB = Some(110))
      else r
    })
    val md = Markdown.render(RunResults.of(measured.meta, measured.rows))
    // Over two starts, the peaks' ratio start by start comes with its interval and the twin's A/A band of peaks.
    val starts = "; over 2 starts 1.10 [1.10–1.10], A/A ±0.0% [1.00–1.00]"
    val rapier = s"+10.0% (418 vs 380 MiB); when ready +20.0 MiB (130 vs 110)$starts"
    assert(md.contains(s"| `netty.future.Rapier` | `netty.Vanilla` | $rapier | $rapier |"), md)
    // A server whose resident memory once started was not measured (as in runs made before it was): no ready figure.
    val log = "+0.0% (380 vs 380 MiB); over 2 starts 1.00 [1.00–1.00], A/A ±0.0% [1.00–1.00]"
    assert(md.contains(s"| `netty.future.RapierLog` | `netty.Vanilla` | $log | $log |"), md)

    // What a peak tells depends on whether the servers collect during a run: under other JVM options, they are named
    assert(md.contains("The servers ran with `-Xmx1g`.") && !md.contains("run's garbage"), md)
    val suiteDefault = measured.meta.copy(jvmOptions = RunOptions().jvmOptions)
    val garbage = Markdown.render(RunResults.of(suiteDefault, measured.rows))
    assert(
      garbage.contains("a peak is the start plus the run's garbage, and grows with the requests a server"),
      garbage
    )

  test("a library's peak resident memory over its twin's is a ratio start by start, read against the twin's A/A peaks"):
    // Start 1: Rapier 440 MiB against the twin's 400 (its second JVM 404); start 2: 420 against 400 (396).
    val peaks = Map(1 -> (440.0, 400.0, 404.0), 2 -> (420.0, 400.0, 396.0))
    val rows = sample.rows.filter(_.scenario == "SimpleGet").map { r =>
      val (rapier, twin, aa) = peaks(r.start)
      r.server match
        case "netty.future.Rapier" => r.copy(peakRssMiB = Some(rapier))
        case "netty.Vanilla" => r.copy(peakRssMiB = Some(if r.replica == 2 then aa else twin))
        case _ => r
    }
    val rapier = Summaries.of(rows, twins.get).find(_.server == "netty.future.Rapier").get
    val c = rapier.peakRssCompared.getOrElse(fail("no peak compared"))
    assertEquals(c.interval.rounds, 2)
    assertEqualsDouble(c.interval.center, math.sqrt(1.1 * 1.05), 1e-9)
    assert(c.interval.low < 1.05 && c.interval.high > 1.1, c)
    assert(c.band.exists(b => b.low < 0.99 && b.high > 1.01), c)
    // One start: the ratio alone, and the reports add nothing to the figures beside it.
    val one = Summaries.of(rows.filter(_.start == 1), twins.get).find(_.server == "netty.future.Rapier").get
    assertEquals(one.peakRssCompared.map(_.interval.rounds), Some(1))
    assertEquals(report.Figures.overStarts(one.peakRssCompared), "")
    // A vanilla server has no twin to be compared with.
    assertEquals(Summaries.of(rows, twins.get).find(_.server == "netty.Vanilla").flatMap(_.peakRssCompared), None)

  test("in headless Chromium, the charts and tables are in the page, and it can be drawn"):
    assume(HeadlessChromium.command.isDefined, HeadlessChromium.Missing)
    val dir = Files.createTempDirectory("perf-report")
    val file = Files.writeString(dir.resolve("report.html"), Html.render(sample))
    val dom = HeadlessChromium.run(file.toUri.toString, "--dump-dom")
    assert("<svg".r.findAllIn(dom).size >= 10, "charts in the DOM")
    assert("<rect".r.findAllIn(dom).size >= 16, "bars in the DOM")
    assert(dom.contains("<table class=\"grid\">") && dom.contains("netty.future.Rapier"), "overview in the DOM")
    val png = dir.resolve("report.png")
    HeadlessChromium.run(file.toUri.toString, "--window-size=1280,2400", s"--screenshot=$png")
    assert(Files.size(png) > 20000, s"screenshot of ${Files.size(png)} bytes")
