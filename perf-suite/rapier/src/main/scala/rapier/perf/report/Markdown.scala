package rapier.perf.report

import rapier.perf.{FixedRateSummary, RunOptions, RunResults, Scenarios, Status, Summary}
import rapier.perf.report.Figures.*

/**
 * `summary.md`: a run's figures as Markdown tables, for a pull request or a results page. Each server is a row, each
 * scenario a column, as in the overview of the HTML report; every ratio beside the A/A band it is read against.
 */
object Markdown:
  def render(results: RunResults): String =
    val summaries = results.summaries
    // The catalogue's order, then any scenario it doesn't know, as met; the latency studies have a section of their own
    val known = Scenarios.all.map(_.name)
    val scenarios = summaries.map(_.scenario).distinct.filter(n => Scenarios.byName(n).forall(_.isLoad))
      .sortBy(n => if known.contains(n) then known.indexOf(n) else known.size)
    val libraries = summaries.filter(_.twin.isDefined).map(s => (s.server, s.twin.get, s.users)).distinct
    val vanillas = summaries.filter(_.twin.isEmpty).map(s => (s.server, s.users)).distinct
    def find(server: String, scenario: String, users: Int): Option[Summary] =
      summaries.find(s => s.server == server && s.scenario == scenario && s.users == users)
    val multipleUsers = summaries.map(_.users).distinct.size > 1
    def label(server: String, users: Int) = if multipleUsers then s"`$server` ($users users)" else s"`$server`"
    val columns = scenarios.mkString(" | ")
    def table(cell: (Summary, Option[Summary]) => String): String =
      val head = s"| server | compared with | $columns |"
      val rule = "|---|---|" + "---|" * scenarios.size
      val lines = libraries.map { (server, twin, users) =>
        val cells = scenarios.map(sc => find(server, sc, users).fold("n/a")(s => cell(s, find(twin, sc, users))))
        s"| ${label(server, users)} | `$twin` | ${cells.mkString(" | ")} |"
      }
      (head :: rule :: lines).mkString("\n")
    def vanillaTable(cell: Summary => String): String =
      val lines = vanillas.map { (server, users) =>
        s"| ${label(server, users)} | ${scenarios.map(sc => find(server, sc, users).fold("n/a")(cell)).mkString(" | ")} |"
      }
      (s"| vanilla server | $columns |" :: ("|---|" + "---|" * scenarios.size) :: lines).mkString("\n")
    def applicable(s: Summary)(f: => String) = if s.status == Status.NotApplicable then "n/a" else f

    val noise = vanillaTable(s => applicable(s)(s.noise.fold("–")(band)))
    val ratios = table((s, _) =>
      applicable(s)(s.compared.fold(s.status) { c =>
        val cpu = s.cpuCompared.fold("")(x => s" · CPU ${compared(x)}")
        compared(c) + cpu
      })
    )
    val fixedRate = results.rows.exists(_.fixedRate.isDefined)
    val cost = table((s, _) =>
      applicable(s)(s.fixedRate.fold("–") { f =>
        val at = s"at ${fmt("%,.0f", f.targetRate)}/s"
        if !f.held then s"rate not held ($at)" else f.cpuCost.fold("–")(c => s"${compared(c)} $at${busy(f)}")
      })
    )
    val costNoise = vanillaTable(s =>
      applicable(s)(s.fixedRate.fold("–")(f =>
        val cpu = f.cpuMsPer1000.fold("")(c => s"${fmt("%.2f", c)} ms/1k${busy(f)}; ")
        cpu + f.noise.fold("–")(band)
      ))
    )
    val warmUp =
      val lines = summaries.map(s => (s.server, s.users)).distinct.map { (server, users) =>
        val cells = scenarios.map(sc =>
          find(server, sc, users).fold("n/a")(s =>
            applicable(s)(steady(s.steadyAfterSeconds, None))
          )
        )
        s"| ${label(server, users)} | ${cells.mkString(" | ")} |"
      }
      (s"| server | $columns |" :: ("|---|" + "---|" * scenarios.size) :: lines).mkString("\n")
    val bytes = table { (s, twin) =>
      (s.allocatedBytesPerRequest, twin.flatMap(_.allocatedBytesPerRequest)) match
        case (Some(a), Some(b)) => s"${fmt("%+,.0f", a - b)} (${fmt("%,.0f", a)} vs ${fmt("%,.0f", b)})"
        case _ => "n/a"
    }
    val memory = table { (s, twin) =>
      (s.peakRssMiB, twin.flatMap(_.peakRssMiB)) match
        case (Some(a), Some(b)) =>
          val ready = (s.readyRssMiB, twin.flatMap(_.readyRssMiB)) match
            case (Some(x), Some(y)) =>
              s"; when ready ${fmt("%+,.1f", x - y)} MiB (${fmt("%,.0f", x)} vs ${fmt("%,.0f", y)})"
            case _ => ""
          s"${fmt("%+.1f", (a / b - 1) * 100)}% (${fmt("%,.0f", a)} vs ${fmt("%,.0f", b)} MiB)$ready" +
            Figures.overStarts(s.peakRssCompared)
        case _ => "n/a"
    }
    val shares = table((s, _) => applicable(s)(librarySamples(s)))
    val peers =
      if results.peers.isEmpty then "No peer ran beside Rapier in this run."
      else
        val pairs = results.peers.map(p => (p.rapier, p.peer, p.users)).distinct
        val lines = pairs.map { (rapier, peer, users) =>
          val cells = scenarios.map(sc =>
            results.peers.find(p => p.rapier == rapier && p.peer == peer && p.scenario == sc && p.users == users)
              .fold("n/a")(p => interval(p.ratio))
          )
          s"| ${label(rapier, users)} | `$peer` | ${cells.mkString(" | ")} |"
        }
        (s"| Rapier server | over | $columns |" :: ("|---|---|" + "---|" * scenarios.size) :: lines).mkString("\n")
    val m = results.meta
    val machine = m.machine
    val distrust = results.rows.filter(r =>
      r.status == Status.Invalid || r.status == Status.Failed || r.loadBound || r.note.nonEmpty
    )
    val distrustLines =
      if distrust.isEmpty then List("None: every run was valid, and the load generator always had CPU to spare.")
      else
        distrust.map(r =>
          s"- start ${r.start}, `${r.server}`${if r.replica == 2 then " (A/A)" else ""} · ${r.scenario}: " +
            (if r.loadBound then "load-bound (wrk's CPUs saturated, the server's not)"
             else if r.valid then r.note
             else s"${r.status}: ${r.note}")
        )
    val sections = List.newBuilder[String]

    /** What only load scenarios have: throughput, the fixed rate, peers, warm-up and allocation per request. */
    def loadSections(): Unit =
      sections ++= List(
        "## Noise floor: A/A bands of the vanilla servers",
        "",
        noise,
        "",
        "## Throughput as a share of the vanilla twin",
        "",
        "Each cell: the throughput ratio, then CPU efficiency (the twin's CPU time per request over this server's).",
        "",
        ratios,
        ""
      )
      if fixedRate then
        sections ++= List(
          "## CPU time per request at a fixed rate, over the twin's",
          "",
          "The open model: requests at a fixed rate (the same for a library and its twin in a round), CPU time per " +
            "request from /proc. 1.04 is 4% more CPU per request than the bare server. A server *near saturation* " +
            s"kept ${fmt("%.0f", FixedRateSummary.Saturated * 100)}% or more of its CPU busy at that rate: it queues " +
            "there, and a few percent more CPU per request shows in its latency, or loses the rate.",
          "",
          cost,
          "",
          "The vanilla servers' CPU time per 1,000 requests at that rate, and their A/A band:",
          "",
          costNoise,
          ""
        )
      sections ++= List(
        "## Against peers",
        "",
        "Rapier's throughput over the peer's: geometric means of their rounds with Welch's 95% interval (each ran in " +
          "its own twin's group, minutes apart, unless it has the same twin as Rapier's server).",
        "",
        peers,
        "",
        "## Warm-up to steady state",
        "",
        "Seconds of load until throughput stayed within 10% of where it settled and the JIT stopped compiling (mean, " +
          "lowest–highest start of the servers).",
        "",
        warmUp,
        "",
        "## Bytes allocated per request, over the twin",
        "",
        bytes,
        "",
        "## Peak resident memory, over the twin",
        "",
        "Each cell: the peak, then the resident memory once started and checked, before any load (means over the " +
          "starts), and, over two starts or more, the peak's ratio to the twin's start by start with its 95% " +
          s"interval and the twin's A/A band of peaks. ${peakMeaning(results.meta.jvmOptions)}",
        "",
        memory,
        ""
      )

    sections ++= List(
      "```sh",
      m.command,
      "```",
      "",
      s"From ${m.started} to ${m.finished}; ${machine.cpus} CPUs (${machine.cpuModel}), " +
        s"${fmt("%.1f", machine.memoryGiB)} GiB, ${machine.os} ${machine.kernel}, ${machine.jdk}, ${machine.wrk}; " +
        (if machine.pinned then s"servers on CPU ${machine.serverCpus}, load generators on CPU ${machine.loadCpus}; "
         else "not pinned; ") +
        s"${m.rounds} interleaved round(s) of ${m.durationSeconds} s per server after at least ${m.warmupSeconds} s " +
        s"of warm-up, ${m.starts} start(s) of the servers, " +
        s"${m.users.mkString(", ")} users; server JVM options ${m.jvmOptions.mkString(" ")}" +
        m.fixedRate.fold("")(r => s"; fixed-rate window: $r") + (if m.profiled then "; profiled" else "") +
        m.studies.fold("")(st => s"; latency studies: $st") + ".",
      "",
      "Every ratio is the geometric mean of the rounds' ratios (a library's slice over its twin's slice of the same " +
        "round) with its 95% confidence interval in brackets. The A/A band is the same interval for the twin's second " +
        "JVM over its first, made symmetric around 1: two runs of the same server differ this much here with nothing " +
        "changed. A ratio whose interval lies inside its twin's band reads *within noise*.",
      ""
    )
    if scenarios.nonEmpty then loadSections()
    if m.profiled && scenarios.nonEmpty then
      sections ++= List("## Share of CPU samples in the library's frames", "", shares, "")
    val studies = StudyTables.markdown(summaries)
    if studies.nonEmpty then sections ++= List("## Latency studies", "", StudyTables.intro, "") ++ studies
    sections ++= List("## Runs to distrust", "", distrustLines.mkString("\n"), "")
    sections.result().mkString("\n")

  /** Said of a fixed-rate window that kept the server's CPUs nearly all busy. */
  private def busy(f: FixedRateSummary): String =
    f.serverCpuUtilization.filter(_ => f.nearSaturation)
      .fold("")(u => s", near saturation (${fmt("%.0f", u * 100)}% of its CPU)")

  /** What a peak of resident memory tells under the servers' JVM options. */
  private def peakMeaning(jvmOptions: List[String]): String =
    if jvmOptions == RunOptions().jvmOptions then
      "A run under the suite's 2 GiB heap seldom collects: a peak is the start plus the run's garbage, and grows with " +
        "the requests a server serves (`--jvm-opts '-Xms2g -Xmx2g -Xmn64m'` has every server collect at the same pace)."
    else s"The servers ran with `${jvmOptions.mkString(" ")}`."
