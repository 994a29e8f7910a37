package rapier.perf.report

import rapier.perf.{RunResults, Scenarios, Status, Summary}

import java.util.Locale

/**
 * `summary.md`: a run's ratios and allocation overheads as Markdown tables, for a pull request or a results page. Each
 * library server is a row, each scenario a column, as in the overview of the HTML report.
 */
object Markdown:
  def render(results: RunResults): String =
    val summaries = results.summaries
    // The catalogue's order, then any scenario it doesn't know, as met.
    val known = Scenarios.all.map(_.name)
    val scenarios =
      summaries.map(_.scenario).distinct.sortBy(n => if known.contains(n) then known.indexOf(n) else known.size)
    val libraries = summaries.filter(_.twin.isDefined).map(s => (s.server, s.twin.get, s.users)).distinct
    def find(server: String, scenario: String, users: Int): Option[Summary] =
      summaries.find(s => s.server == server && s.scenario == scenario && s.users == users)
    val multipleUsers = libraries.map(_._3).distinct.size > 1
    def label(server: String, users: Int) = if multipleUsers then s"`$server` ($users users)" else s"`$server`"
    def table(cell: (Summary, Option[Summary]) => String): String =
      val head = s"| server | compared with | ${scenarios.mkString(" | ")} |"
      val rule = "|---|---|" + "---|" * scenarios.size
      val lines = libraries.map { (server, twin, users) =>
        val cells = scenarios.map(sc => find(server, sc, users).fold("n/a")(s => cell(s, find(twin, sc, users))))
        s"| ${label(server, users)} | `$twin` | ${cells.mkString(" | ")} |"
      }
      (head :: rule :: lines).mkString("\n")

    val ratios = table { (s, _) =>
      if s.status == Status.NotApplicable then "n/a"
      else
        s.ratio.fold(s.status) { r =>
          val cpu = s.cpuRatio.fold("")(c => s" / ${fmt("%.2f", c.mean)}")
          val best = s.bestRatio.filter(_ => s.validRounds > 1).fold("")(b => s" · best ${fmt("%.2f", b)}")
          s"${fmt("%.2f", r.mean)} (${fmt("%.2f", r.min)}–${fmt("%.2f", r.max)})$cpu$best"
        }
    }
    val bytes = table { (s, twin) =>
      (s.allocatedBytesPerRequest, twin.flatMap(_.allocatedBytesPerRequest)) match
        case (Some(a), Some(b)) => s"${fmt("%+,.0f", a - b)} (${fmt("%,.0f", a)} vs ${fmt("%,.0f", b)})"
        case _ => "n/a"
    }
    val m = results.meta
    val machine = m.machine
    val distrust = results.rows.filter(r => r.status == Status.Invalid || r.status == Status.Failed || r.loadBound)
    val distrustLines =
      if distrust.isEmpty then List("None: every run was valid, and the load generator always had CPU to spare.")
      else
        distrust.map(r =>
          s"- round ${r.round}, `${r.server}` · ${r.scenario}: " +
            (if r.loadBound then "load-bound (wrk's CPUs saturated, the server's not)" else s"${r.status}: ${r.note}")
        )
    List(
      "```sh",
      m.command,
      "```",
      "",
      s"From ${m.started} to ${m.finished}; ${machine.cpus} CPUs (${machine.cpuModel}), " +
        s"${fmt("%.1f", machine.memoryGiB)} GiB, ${machine.os} ${machine.kernel}, ${machine.jdk}, ${machine.wrk}; " +
        (if machine.pinned then s"servers on CPU ${machine.serverCpus}, wrk on CPU ${machine.loadCpus}; "
         else "not pinned; ") +
        s"${m.rounds} round(s) of ${m.durationSeconds} s per test after at least ${m.warmupSeconds} s of warm-up, " +
        s"${m.users.mkString(", ")} users; server JVM options ${m.jvmOptions.mkString(" ")}.",
      "",
      "## Throughput as a share of the vanilla twin",
      "",
      "Each cell: the mean of the rounds' ratios (lowest–highest round), then CPU efficiency (the twin's CPU time per " +
        "request divided by this server's), then, over several rounds, each server's best round over the twin's best " +
        "(on a shared machine, the runs least disturbed by other work).",
      "",
      ratios,
      "",
      "## Bytes allocated per request, over the twin",
      "",
      bytes,
      "",
      "## Runs to distrust",
      "",
      distrustLines.mkString("\n"),
      ""
    ).mkString("\n")

  private def fmt(pattern: String, value: Double): String = String.format(Locale.ROOT, pattern, value)
