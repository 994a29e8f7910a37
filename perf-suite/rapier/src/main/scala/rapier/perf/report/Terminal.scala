package rapier.perf.report

import rapier.perf.{Status, Summary}

/** The summary printed at the end of a run: throughput and the ratio to the bare server, per test. */
object Terminal:
  def summary(summaries: List[Summary]): String =
    val head =
      f"${"server"}%-26s ${"scenario"}%-20s ${"users"}%5s ${"req/s"}%12s ${"vs vanilla"}%11s ${"CPU vs van."}%11s ${"p99 ms"}%9s ${"B/req"}%9s"
    val lines = summaries.map { s =>
      val tput = s.throughput.fold(s.status)(t => f"${t.mean}%,.0f")
      val ratio = s.ratio.fold(if s.twin.isDefined then "–" else "(vanilla)")(r => f"${r.mean * 100}%.1f%%")
      val cpuRatio = s.cpuRatio.fold("")(r => f"${r.mean * 100}%.1f%%")
      val p99 = s.latencyMs.fold("–")(l => f"${l.p99}%.2f")
      val alloc = s.allocatedBytesPerRequest.fold("–")(a => f"$a%,.0f")
      val flag = if s.status != Status.Ok then s"  [${s.status}]" else if s.loadBound then "  [load-bound]" else ""
      f"${s.server}%-26s ${s.scenario}%-20s ${s.users}%5d $tput%12s $ratio%11s $cpuRatio%11s $p99%9s $alloc%9s$flag"
    }
    (head :: "-" * head.length :: lines).mkString("\n")
