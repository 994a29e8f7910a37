package rapier.perf.report

import rapier.perf.{Row, Summary}
import rapier.perf.report.Svg.escape

/** The report's tables: every summary's figures, every run's, and the plain table they are drawn in. */
object Tables:

  private def opt(d: Option[Double], digits: Int = 0) = Figures.number(d, digits)

  def summaryTable(s: List[Summary]): String =
    val head = List(
      "server",
      "scenario",
      "users",
      "status",
      "req/s",
      "min",
      "max",
      "vs vanilla [95% CI]",
      "A/A band",
      "CPU vs vanilla",
      "CPU/req @rate vs vanilla",
      "steady after",
      "p50 ms",
      "p99 ms",
      "p99.99 ms",
      "CPU ms/1k",
      "B/req",
      "peak RSS MiB (when ready)",
      "peak RSS vs vanilla",
      "GCs/run"
    )
    val rows = s.map { r =>
      val l = r.latencyMs
      List(
        r.server,
        r.scenario,
        r.users.toString,
        s"${r.status} (${r.validRounds}/${r.rounds})",
        opt(r.throughput.map(_.mean)),
        opt(r.throughput.map(_.min)),
        opt(r.throughput.map(_.max)),
        r.compared.fold("–")(c => Figures.interval(c.interval) + (if c.withinNoise then " (within noise)" else "")),
        r.compared.flatMap(_.band).orElse(r.noise).fold("–")(Figures.band),
        r.cpuCompared.fold("–")(c => Figures.interval(c.interval)),
        r.fixedRate.flatMap(_.cpuCost).fold("–")(c => Figures.interval(c.interval)),
        Figures.steady(r.steadyAfterSeconds, None),
        opt(l.map(_.p50), 3),
        opt(l.map(_.p99), 3),
        opt(l.map(_.p9999), 3),
        opt(r.cpuMsPer1000, 1),
        opt(r.allocatedBytesPerRequest),
        opt(r.peakRssMiB) + Figures.beside(r.readyRssMiB),
        r.peakRssCompared.fold("–")(c => Figures.interval(c.interval)),
        opt(r.gcCountPerRun, 1)
      )
    }
    table(head, rows)

  def rowTable(rows: List[Row]): String =
    val head = List(
      "start",
      "server",
      "scenario",
      "users",
      "status",
      "warm-up s",
      "steady after s",
      "fixed rate/s",
      "achieved/s",
      "CPU ms/1k @rate",
      "req/s",
      "p99 ms",
      "errors",
      "server CPU",
      "wrk CPU",
      "B/req",
      "note"
    )
    table(
      head,
      rows.map { r =>
        List(
          r.start.toString,
          r.server + (if r.replica == 2 then " (A/A)" else ""),
          r.scenario,
          r.users.toString,
          r.status,
          r.warmupSeconds.toString,
          opt(r.steadyAfterSeconds),
          opt(r.fixedRate.map(_.targetRate)),
          opt(r.fixedRate.map(_.achievedRate)),
          opt(r.fixedRate.flatMap(_.cpuMsPer1000), 1),
          Figures.number(r.throughput),
          opt(r.latencyMs.map(_.p99), 3),
          r.errors.toString,
          opt(r.serverCpuUtilization.map(_ * 100)) + "%",
          opt(r.loadCpuUtilization.map(_ * 100)) + "%",
          opt(r.allocatedBytesPerRequest),
          r.note
        )
      }
    )

  def table(head: List[String], rows: List[List[String]]): String =
    rawTable(head, rows.map(_.map(escape)))

  /** A table of cells already written as HTML (links). */
  def rawTable(head: List[String], rows: List[List[String]]): String =
    s"""<div class="scroll"><table><thead><tr>${head.map(h =>
        s"<th>${escape(h)}</th>"
      ).mkString}</tr></thead><tbody>""" +
      rows.map(r => s"<tr>${r.map(c => s"<td>$c</td>").mkString}</tr>").mkString + "</tbody></table></div>"
