package rapier.perf.report

import rapier.perf.{RunResults, Row, Status}
import rapier.perf.report.Html.{chartBlock, section}
import rapier.perf.report.Svg.{Bar, XySeries}

/**
 * The report's charts over time: each server's warm-up, second by second, and its CPU, heap and resident memory over
 * a whole test as the server sampled them itself, like the seeds' CPU and memory graphs. One line per server, from
 * its first valid round.
 */
object TimeCharts:
  /** Each test's first valid run of each server (not the A/A replicas), by scenario and users, in run order. */
  private def firstRuns(results: RunResults): List[((String, Int), List[Row])] =
    val valid = results.rows.filter(r => r.valid && r.replica == 1)
    val tests = valid.map(r => (r.scenario, r.users)).distinct
    tests.map(t =>
      t ->
        valid.filter(r => (r.scenario, r.users) == t).groupBy(_.server).values.map(_.minBy(_.start)).toList
          .sortBy(r => valid.indexOf(r))
    )

  def warmUp(results: RunResults, color: Map[String, String]): String =
    val blocks = firstRuns(results).map { case ((scenario, users), rows) =>
      val steady = results.summaries.filter(s => s.scenario == scenario && s.users == users && s.status == Status.Ok)
      val bars = steady.map(s =>
        s.steadyAfterSeconds match
          case Some(x) => Bar(s.server, x.mean, x.min, x.max, color(s.server), f"${x.mean}%.0f s")
          case None => Bar(s.server, 0, 0, 0, "", "", Some("not steady within the warm-up"))
      )
      val curves = rows.filter(_.warmupThroughput.nonEmpty).map(r =>
        XySeries(r.server, color(r.server), r.warmupThroughput.zipWithIndex.map((t, i) => ((i + 1).toDouble, t)))
      )
      chartBlock(s"$scenario · $users users · seconds to steady state", Svg.bars(bars)) +
        chartBlock(s"$scenario · $users users · throughput during warm-up", Svg.xy(curves, "s", "req/s"))
    }
    section(
      "warm-up",
      "Warm-up",
      "How long each server took to reach its steady throughput from a cold start (mean over rounds, whiskers lowest " +
        "and highest round): the second from which throughput stayed within 10% of where it settled. With the " +
        "server on one CPU, its JIT compiler competes with it; this is the cost users feel after every deploy. " +
        "Below, each server's first round, second by second.",
      blocks.mkString
    )

  def timelines(results: RunResults, color: Map[String, String]): String =
    val blocks = firstRuns(results).flatMap { case ((scenario, users), rows) =>
      val sampled = rows.filter(_.timeline.isDefined)
      Option.when(sampled.nonEmpty) {
        // Aligned on the start of each server's measured window: warm-up before zero, measurement after.
        def series(pick: rapier.perf.Timeline => List[Double]) = sampled.map { r =>
          val t = r.timeline.get
          val zero = t.marks.find(_.label == "measured").fold(0.0)(_.seconds)
          val step = t.intervalMs / 1000.0
          XySeries(r.server, color(r.server), pick(t).zipWithIndex.map((v, i) => (i * step - zero, v)))
        }
        val first = sampled.head.timeline.get
        val zero = first.marks.find(_.label == "measured").fold(0.0)(_.seconds)
        val marks = first.marks.map(m => (m.label, m.seconds - zero)).filter(_._2 >= 0)
        s"""<div class="trio"><h3>${Svg.escape(s"$scenario · $users users")}</h3>""" +
          s"<h4>CPU, % of one CPU</h4>${Svg.xy(series(_.cpuPercent), "s", "%", marks)}" +
          s"<h4>Heap in use</h4>${Svg.xy(series(_.heapMiB), "s", "MiB", marks)}" +
          s"<h4>Resident memory</h4>${Svg.xy(series(_.rssMiB), "s", "MiB", marks)}</div>"
      }
    }
    section(
      "timeline",
      "CPU and memory over a test",
      "What each server recorded of itself every 250 ms, from its JVM's start, aligned on the start of its measured " +
        "window (zero): warm-up before it; after it, the measured window, then the fixed-rate window and the " +
        "profiles where the run had them (marks from the first server's run).",
      if blocks.isEmpty then "<p>No server recorded a timeline in this run.</p>" else blocks.mkString
    )
