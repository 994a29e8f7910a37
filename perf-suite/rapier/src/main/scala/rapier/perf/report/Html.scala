package rapier.perf.report

import rapier.perf.*
import rapier.perf.report.Svg.{Bar, Series, escape}

/** `report.html`: one self-contained page (no network), charts as inline SVG, every figure in a table. */
object Html:
  private val palette = Map(
    "Vanilla" -> List("#4b5563", "#9ca3af", "#6b7280", "#d1d5db"),
    "Rapier" -> List("#0f766e", "#14b8a6", "#115e59", "#5eead4"),
    "Tapir" -> List("#c2410c", "#fb923c", "#9a3412", "#fdba74"),
    "ZioHttp" -> List("#7c3aed", "#a78bfa", "#5b21b6", "#c4b5fd")
  )

  /** A color per server, by implementation, in catalogue order. */
  private[report] def colors(summaries: List[Summary]): Map[String, String] =
    summaries.map(s => (s.implementation, s.server)).distinct.groupBy(_._1).toList.flatMap { (impl, servers) =>
      val shades = palette.getOrElse(impl, List("#7c3aed", "#a78bfa"))
      servers.map(_._2).zipWithIndex.map((server, i) => server -> shades(i % shades.size))
    }.toMap

  def render(results: RunResults): String =
    val color = colors(results.summaries)
    // The load scenarios' summaries: the latency studies have a section of their own
    val load = (scenario: String) => Scenarios.byName(scenario).forall(_.isLoad)
    val s = results.summaries.filter(x => load(x.scenario))
    val scenarios = s.map(_.scenario).distinct
    val users = s.map(_.users).distinct
    val m = results.meta
    // One chart per users × scenario, from the summaries `keep` selects of that test
    def perTest(keep: Summary => Boolean)(chart: (String, List[Summary]) => String): String =
      users.flatMap(u => scenarios.map(sc => (u, sc))).map { (u, sc) =>
        chart(s"$sc · $u users", s.filter(x => x.users == u && x.scenario == sc && keep(x)))
      }.mkString
    val applicable = (x: Summary) => x.status != Status.NotApplicable
    val comparable = (x: Summary) => x.twin.isDefined && applicable(x)
    val sections = List.newBuilder[String]

    /** The sections of the load scenarios, which every run with a load scenario has. */
    def loadSections(): Unit =
      sections += overview(s, users, scenarios)
      sections += Comparisons.noise(s)
      sections += section(
        "overhead",
        "Throughput relative to the bare server",
        "Each library's throughput divided by that of the hand-written server on the same backend and version, round " +
          "by round: the bar is the geometric mean, the whiskers its 95% confidence interval, the shaded band the " +
          "twin's A/A noise floor (two runs of the bare server differ this much). 100% is the bare server.",
        perTest(comparable)((title, rows) =>
          chartBlock(
            title,
            Svg.bars(rows.map(comparedBar(_, _.compared, color)), Some(1.0 -> "bare server"))
          )
        )
      )
      sections += section(
        "efficiency",
        "CPU efficiency relative to the bare server",
        "The bare server's CPU time per request divided by the library's, round by round: the throughput ratio both " +
          "would show with the server's CPU saturated. On a shared machine this is the steadier of the two figures, " +
          "since a server that waited on the network shows less throughput without costing less.",
        perTest(comparable)((title, rows) =>
          chartBlock(
            title,
            Svg.bars(rows.map(comparedBar(_, _.cpuCompared, color)), Some(1.0 -> "bare server"))
          )
        )
      )
      if results.rows.exists(_.fixedRate.isDefined) then
        val costOf = (x: Summary) => x.fixedRate.flatMap(_.cpuCost)
        sections += section(
          "fixed-rate",
          "CPU time per request at a fixed rate",
          "The open model: oha sends requests at a fixed rate (half the twin's maximum in the round, the same for a " +
            "library and its twin) whatever the answers do. The bar is the library's CPU time per request over its " +
            "twin's (above 100% costs more), whiskers its 95% interval, the shaded band the twin's A/A band. Latency is " +
            "measured from each request's intended send time, so a stall counts for every request it delayed.",
          perTest(comparable)((title, rows) =>
            chartBlock(
              title,
              Svg.bars(rows.map(comparedBar(_, costOf, color)), Some(1.0 -> "bare server"))
            )
          ) + perTest(_.fixedRate.isDefined) { (title, rows) =>
            val series = rows.map { r =>
              val l = r.fixedRate.get.latencyMs.get
              Series(r.server, color(r.server), List(l.p50, l.p75, l.p90, l.p99, l.p999, l.p9999))
            }
            chartBlock(
              s"$title · latency at a fixed rate",
              Svg.lines(List("p50", "p75", "p90", "p99", "p99.9", "p99.99"), series, "ms")
            )
          }
        )
      sections += section(
        "throughput",
        "Throughput",
        "Requests per second; whiskers: lowest and highest round.",
        perTest(applicable)((title, rows) => chartBlock(title, Svg.bars(rows.map(throughputBar(_, color)))))
      )
      sections += section(
        "latency",
        "Latency",
        "Percentiles as wrk recorded them, mean over rounds, logarithmic scale.",
        perTest(_.latencyMs.isDefined) { (title, rows) =>
          val series = rows.map { r =>
            val l = r.latencyMs.get
            Series(r.server, color(r.server), List(l.p50, l.p75, l.p90, l.p99, l.p999, l.p9999))
          }
          chartBlock(title, Svg.lines(List("p50", "p75", "p90", "p99", "p99.9", "p99.99"), series, "ms"))
        }
      )
      sections += section(
        "cost",
        "Cost per request",
        "Server CPU time per 1,000 requests (from /proc), bytes the server allocated per request (from its threads' " +
          "allocation counters), and the server's peak resident memory (and, in parentheses, its resident memory once " +
          "started, before any load: what the peak owes to the start; after it, over two starts or more, a library's " +
          "peak over its twin's, start by start, with its 95% interval).",
        perTest(applicable) { (title, rows) =>
          def metric(f: Summary => Option[Double], unit: String, digits: Int, aside: Summary => String = _ => "") =
            Svg.bars(rows.map { r =>
              f(r) match
                case Some(v) =>
                  Bar(r.server, v, v, v, color(r.server), s"${Figures.number(v, digits)} $unit${aside(r)}")
                case None =>
                  Bar(r.server, 0, 0, 0, "", "", Some(if r.status == Status.Ok then "not measured" else r.status))
            })
          val peak =
            metric(_.peakRssMiB, "MiB", 0, r => Figures.beside(r.readyRssMiB) + Figures.overStarts(r.peakRssCompared))
          s"""<div class="trio"><h3>${escape(title)}</h3>
             |<div><h4>CPU ms per 1,000 requests</h4>${metric(_.cpuMsPer1000, "ms", 1)}</div>
             |<div><h4>Bytes allocated per request</h4>${metric(_.allocatedBytesPerRequest, "B", 0)}</div>
             |<div><h4>Peak RSS</h4>$peak</div></div>""".stripMargin
        }
      )
    sections += machine(m)
    sections += notes(results)
    if s.nonEmpty then loadSections()
    sections += StudyTables.html(results.summaries, color)
    val loads = results.copy(rows = results.rows.filter(r => load(r.scenario)), summaries = s)
    if s.nonEmpty then sections += TimeCharts.warmUp(loads, color)
    sections += TimeCharts.timelines(results, color)
    if m.profiled then sections += Comparisons.profiles(results)
    sections += Comparisons.peers(results)
    sections += section("figures", "Every figure", "Means over valid rounds.", Tables.summaryTable(results.summaries))
    sections += s"""<section id="runs"><details><summary>Every run (${results.rows.size})</summary>${Tables.rowTable(
        results.rows
      )}</details></section>"""
    sections += method(m)
    page(m, sections.result().mkString("\n"))

  /** Every library server against every scenario, as a grid of ratios to the bare server: the run at a glance. */
  private def overview(s: List[Summary], users: List[Int], scenarios: List[String]): String =
    val servers = s.filter(_.twin.isDefined).map(_.server).distinct
    def cell(x: Option[Summary]): String = x match
      case Some(r) if r.compared.isDefined =>
        val c = r.compared.get
        val v = c.interval.center
        val interval = if c.interval.rounds > 1 then
          f"<small>${c.interval.low * 100}%.0f–${c.interval.high * 100}%.0f%%</small>"
        else ""
        val cpu = r.cpuCompared.fold("")(c => f"<small>CPU ${c.interval.center * 100}%.0f%%</small>")
        val headline = if c.withinNoise then "within noise" else f"${v * 100}%.0f%%"
        s"""<td class="${if c.withinNoise then "good" else shade(v)}" title="${escape(
            Figures.interval(c.interval)
          )}">$headline$interval$cpu</td>"""
      case Some(r) => s"""<td class="na">${escape(r.status)}</td>"""
      case None => """<td class="na">–</td>"""
    val tables = users.map { u =>
      val head = scenarios.map(sc => s"<th>${escape(sc)}</th>").mkString
      val rows = servers.map { server =>
        val cells =
          scenarios.map(sc => cell(s.find(x => x.server == server && x.scenario == sc && x.users == u))).mkString
        s"<tr><th>${escape(server)}</th>$cells</tr>"
      }.mkString
      s"""<h3>$u users</h3><div class="scroll"><table class="grid"><thead><tr><th>server</th>$head</tr></thead><tbody>$rows</tbody></table></div>"""
    }
    section(
      "overview",
      "Overview",
      "Throughput of each library as a percentage of the bare server on the same backend and version (geometric mean " +
        "over rounds, its 95% interval beneath), and its CPU efficiency. \"Within noise\" when the interval lies " +
        "inside the twin's A/A band. Green is 90% and above, amber 60–90%, red below.",
      tables.mkString
    )

  private def shade(ratio: Double): String = if ratio >= 0.9 then "good" else if ratio >= 0.6 then "fair" else "poor"

  /** A ratio over rounds as a bar: its geometric mean, whiskers over its interval, "within noise" in its label. */
  private def comparedBar(r: Summary, pick: Summary => Option[rapier.perf.Compared], color: Map[String, String]): Bar =
    pick(r) match
      case Some(c) =>
        val i = c.interval
        val text = (if c.withinNoise then "within noise · " else "") +
          f"${i.center * 100}%.0f%% of ${r.twin.getOrElse("")}"
        Bar(r.server, i.center, i.low, i.high, color(r.server), text, band = c.band.map(b => (b.low, b.high)))
      case None =>
        val why =
          if r.status != Status.Ok then r.status
          else if r.fixedRate.exists(!_.held) then "the fixed rate was not held"
          else "nothing to compare"
        Bar(r.server, 0, 0, 0, "", "", Some(why))

  private def throughputBar(r: Summary, color: Map[String, String]): Bar = r.throughput match
    case Some(t) => Bar(r.server, t.mean, t.min, t.max, color(r.server), s"${Figures.number(t.mean)} req/s")
    case None => Bar(r.server, 0, 0, 0, "", "", Some(r.status))

  private[report] def chartBlock(title: String, svg: String): String =
    s"""<figure><figcaption>${escape(title)}</figcaption>$svg</figure>"""

  private[report] def section(id: String, title: String, intro: String, body: String): String =
    s"""<section id="$id"><h2>${escape(title)}</h2><p class="intro">${escape(intro)}</p>$body</section>"""

  private def machine(m: Meta): String =
    val f = m.machine
    val items = List(
      "CPUs" -> s"${f.cpus} × ${f.cpuModel}",
      "Memory" -> f"${f.memoryGiB}%.1f GiB",
      "OS" -> s"${f.os}, kernel ${f.kernel}",
      "JDK" -> f.jdk,
      "Load generator" -> f.wrk,
      "Pinning" ->
        (if f.pinned then s"servers on CPU ${f.serverCpus}, wrk on CPU ${f.loadCpus}" else "none (see the notes)"),
      "Runs" ->
        s"${m.rounds} interleaved round(s) × ${m.durationSeconds} s per server after at least ${m.warmupSeconds} s of warm-up, ${m.starts} start(s) of the servers, ${m.users.mkString(", ")} users",
      "Fixed rate" -> m.fixedRate.getOrElse("off"),
      "Latency studies" -> m.studies.getOrElse("none"),
      "Profiled" -> (if m.profiled then "yes (async-profiler)" else "no"),
      "Server JVM" -> (if m.jvmOptions.isEmpty then "defaults" else m.jvmOptions.mkString(" ")),
      "Command" -> m.command,
      "When" -> s"${m.started} to ${m.finished}"
    )
    s"""<section id="machine" class="card"><dl>${items.map((k, v) =>
        s"<dt>${escape(k)}</dt><dd>${escape(v)}</dd>"
      ).mkString}</dl></section>"""

  private def notes(results: RunResults): String =
    val problems = results.rows.filter(r => r.status == Status.Invalid || r.status == Status.Failed)
    val bound = results.rows.filter(_.loadBound)
    val items = List.newBuilder[String]
    if !results.meta.machine.pinned then
      items += "Servers and load generator were not pinned to separate CPUs: they competed for the same ones."
    problems.foreach(r =>
      items += s"${r.server} · ${r.scenario} · ${r.users} users · start ${r.start}: ${r.status} — ${r.note}"
    )
    val idle = results.rows.filter(r => r.valid && r.note.nonEmpty && !r.loadBound)
    (bound ++ idle).foreach(r =>
      items += s"${r.server} · ${r.scenario} · ${r.users} users · start ${r.start}: ${r.note}"
    )
    val all = items.result()
    if all.isEmpty then """<section id="notes" class="ok">Every run answered correctly and without errors.</section>"""
    else
      s"""<section id="notes" class="warn"><h2>Notes</h2><ul>${all.map(i =>
          s"<li>${escape(i)}</li>"
        ).mkString}</ul><p>Invalid and failed runs count in no mean and no ratio.</p></section>"""

  private def method(m: Meta): String =
    s"""<section id="method"><h2>How this was measured</h2><ul>
       |<li>A library, its vanilla twin and a second JVM of the twin (the A/A pair) run at once, each in a fresh JVM pinned to the server CPUs; the load generators run pinned to the others. A run where the load generator's CPU was saturated while the server's was not is flagged: it measured the load generator.</li>
       |<li>Before loading a server, one request checks its answer; a wrong answer, or any socket error or non-2xx status, makes its run invalid, and invalid runs count in no figure.</li>
       |<li>The servers warm up in turn, a second at a time, each for at least ${m.warmupSeconds} s and until its throughput is stable within 5% and its JIT has stopped compiling (the JIT shares the server's CPU); the second from which it stayed there is its time to steady state.</li>
       |<li>After one settling round, not counted, come ${m.rounds} rounds. In each, every server in turn (the order rotating) gets ${m.durationSeconds} s of the closed model (wrk: each of the ${m.users.mkString(
        "/"
      )} connections sends its next request when the previous one has been answered) and, with a fixed rate, ${m.durationSeconds} s of the open model (oha: requests sent on schedule, latency counted from each request's intended send time). CPU time per request comes from the scheduler's per-thread counters, in nanoseconds.</li>
       |<li>Ratios are taken between two servers' slices of the same round, seconds apart, since the machine drifts by tens of percent within minutes. Every ratio is the geometric mean over the rounds with its 95% confidence interval (Student's t on the logarithms); the A/A band is the same interval for the twin's second JVM over its first, made symmetric around 1, and a ratio whose interval lies inside it reads “within noise”.</li>
       |<li>“Vanilla” is the same endpoints written by hand on each backend, as fast as one honestly can: no aggregation on Netty, a body copied once, routes in a hash map, one flush per read burst. Each library is compared with the vanilla server on the backend version it runs on.</li>
       |</ul></section>""".stripMargin

  private def page(m: Meta, body: String): String =
    s"""<!doctype html>
       |<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
       |<title>Performance report · ${escape(m.started)}</title>
       |<style>
       |body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f8fafc;margin:0;padding:24px 32px;line-height:1.45}
       |main{max-width:1240px;margin:0 auto}h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:32px 0 6px;border-bottom:2px solid #e5e7eb;padding-bottom:4px}
       |h3{font-size:15px;margin:16px 0 4px}h4{font-size:13px;margin:8px 0 0;color:#4b5563;font-weight:600}.sub{color:#6b7280;margin:0 0 16px}
       |.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 18px}dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}
       |dt{color:#6b7280}dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;word-break:break-all}
       |.intro{color:#4b5563;margin:0 0 8px;max-width:900px}figure{background:#fff;border:1px solid #e5e7eb;border-radius:8px;margin:10px 0;padding:8px 12px}
       |figcaption{font-weight:600;margin-bottom:4px}.trio{background:#fff;border:1px solid #e5e7eb;border-radius:8px;margin:10px 0;padding:8px 12px}
       |#notes{margin:16px 0;padding:10px 16px;border-radius:8px}#notes.ok{background:#ecfdf5;border:1px solid #a7f3d0;color:#065f46}
       |#notes.warn{background:#fef2f2;border:1px solid #fecaca}#notes.warn h2{border:0;margin-top:0;color:#991b1b}
       |.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px;background:#fff;min-width:100%}
       |th,td{padding:4px 8px;border-bottom:1px solid #e5e7eb;text-align:right;white-space:nowrap}th{background:#f3f4f6;position:sticky;top:0}
       |td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}tbody tr:nth-child(even){background:#f9fafb}details summary{cursor:pointer;font-weight:600;margin:24px 0 8px}
       |table.grid td{text-align:center;font-weight:600;font-size:15px;min-width:96px}table.grid td small{display:block;font-weight:400;font-size:11px;opacity:.8}
       |table.grid td.good{background:#d1fae5;color:#065f46}table.grid td.fair{background:#fef3c7;color:#92400e}table.grid td.poor{background:#fee2e2;color:#991b1b}
       |table.grid td.na{color:#9ca3af;font-weight:400}table.grid tbody tr:nth-child(even) td.na{background:#f9fafb}
       |</style></head><body><main>
       |<h1>Performance report</h1>
       |<p class="sub">${escape(
        s"${m.machine.cpus} CPUs · ${m.users.mkString(", ")} users · ${m.rounds} round(s) of ${m.durationSeconds} s × ${m.starts} start(s) · ${m.started}"
      )}</p>
       |$body
       |</main></body></html>
       |""".stripMargin
