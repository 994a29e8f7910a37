package rapier.perf.report

import rapier.perf.{RunResults, Status}
import rapier.perf.report.Figures.*

/**
 * The summary printed at the end of a run, per test: throughput, the ratio to the vanilla twin with its interval (or
 * "within noise"), the A/A band it is read against, the fixed-rate CPU cost, warm-up to steady state and allocation;
 * for a latency study, the median and p99.99 beside the twin's.
 */
object Terminal:
  def summary(results: RunResults): String =
    val head =
      f"${"server"}%-26s ${"scenario"}%-20s ${"users"}%5s ${"req/s"}%10s ${"vs vanilla [95% CI]"}%-19s ${"A/A band"}%-20s ${"CPU/req @rate"}%-19s ${"steady"}%-13s ${"B/req"}%8s"
    val (loads, studies) = results.summaries.partition(s => rapier.perf.Scenarios.byName(s.scenario).forall(_.isLoad))
    val lines = loads.map { s =>
      val tput = s.throughput.fold(s.status)(t => fmt("%,.0f", t.mean))
      val ratio = s.compared.fold(if s.twin.isDefined then "–" else "(vanilla)")(compared)
      val noise = s.compared.flatMap(_.band).orElse(s.noise).fold("–")(band)
      val cost = s.fixedRate.fold("–")(f =>
        f.cpuCost.map(compared).orElse(f.cpuMsPer1000.map(c => s"${fmt("%.1f", c)} ms/1k"))
          .getOrElse(if f.held then "–" else "rate not held")
      )
      val steadyAfter = steady(s.steadyAfterSeconds, None)
      val alloc = s.allocatedBytesPerRequest.fold("–")(a => fmt("%,.0f", a))
      val flag = if s.status != Status.Ok then s"  [${s.status}]" else if s.loadBound then "  [load-bound]" else ""
      f"${s.server}%-26s ${s.scenario}%-20s ${s.users}%5d $tput%10s $ratio%-19s $noise%-20s $cost%-19s $steadyAfter%-13s $alloc%8s$flag"
    }
    val peers = results.peers.map(p =>
      s"${p.rapier} over ${p.peer} · ${p.scenario} · ${p.users} users: ${interval(p.ratio)}"
    )
    val studyLines = StudyTables.studies(studies).flatMap { (title, rows) =>
      s"Latency study · $title (p50 and p99.99 in ms; a library's ratio to its twin's, above 1 slower):" ::
        rows.map { s =>
          def at(name: String) = s.percentiles.find(_.name == name).fold(s.status)(StudyTables.cell)
          val flag = if s.status != Status.Ok then s"  [${s.status}]" else ""
          f"  ${s.server}%-26s p50 ${at("p50")}%-36s p99.99 ${at("p99.99")}%-36s$flag"
        }
    }
    val blocks = List(
      if loads.isEmpty then Nil else head :: "-" * head.length :: lines,
      if studyLines.isEmpty then Nil else studyLines,
      if peers.isEmpty then Nil else "Against peers:" :: peers
    ).filter(_.nonEmpty)
    blocks.map(_.mkString("\n")).mkString("\n\n")
