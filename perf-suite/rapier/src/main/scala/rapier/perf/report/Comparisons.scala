package rapier.perf.report

import rapier.perf.{RunResults, Status, Summary}
import rapier.perf.report.Html.section
import rapier.perf.report.Svg.escape

/** The report's sections that compare beyond a library and its twin: the noise floor, the profiles, the peers. */
object Comparisons:
  /** The A/A bands of the vanilla servers: the noise floor every ratio of the run is read against. */
  def noise(s: List[Summary]): String =
    val vanilla = s.filter(x => x.twin.isEmpty && x.status != Status.NotApplicable)
    val rows = vanilla.map { v =>
      List(
        v.server,
        v.scenario,
        v.users.toString,
        v.noise.fold("–")(Figures.band),
        v.noise.fold("–")(_.rounds.toString),
        v.fixedRate.flatMap(_.noise).fold("–")(Figures.band)
      )
    }
    section(
      "noise",
      "Noise floor",
      "Every vanilla twin runs in two JVMs beside the libraries compared with it. The band is the 95% interval of the " +
        "second JVM's figures over the first's, round by round, made symmetric around 100%: no ratio inside it is " +
        "read as a difference.",
      Tables.table(
        List(
          "vanilla server",
          "scenario",
          "users",
          "throughput A/A band",
          "A/A pairs",
          "CPU/request A/A band at a fixed rate"
        ),
        rows
      )
    )

  /** Flame graphs of each profiled test, and each library's share of CPU samples in its own frames. */
  def profiles(results: RunResults): String =
    val rows = results.rows.filter(_.profile.isDefined).map { r =>
      val p = r.profile.get
      def link(path: Option[String], label: String) =
        path.fold("–")(x => s"""<a href="${escape(x)}">${escape(label)}</a>""")
      List(
        escape(r.start.toString),
        escape(r.server + (if r.replica == 2 then " (A/A)" else "")),
        escape(r.scenario),
        escape(r.users.toString),
        link(p.cpuFlamegraph, "CPU"),
        link(p.allocFlamegraph, "allocations"),
        escape(p.cpuSamples.toString),
        link(p.fixedRateCpuFlamegraph, "CPU at the fixed rate"),
        escape(p.fixedRateCpuSamples.fold("–")(_.toString)),
        escape(p.library.getOrElse("–")),
        escape(p.ownShare.fold("–")(Figures.share)),
        escape(p.stackShare.fold("–")(Figures.share)),
        escape(p.note)
      )
    }
    val head = List(
      "start",
      "server",
      "scenario",
      "users",
      "flame graph",
      "flame graph",
      "CPU samples",
      "flame graph",
      "CPU samples at the fixed rate",
      "library frames",
      "own share",
      "on stack",
      "note"
    )
    section(
      "profiles",
      "Profiles",
      "async-profiler in each server after its rounds, over one more run of the scenario's load (CPU, every " +
        "millisecond of CPU time) and over another (allocations, every 512 KiB): wrk for the measured duration, or a " +
        "latency study's client for one round; then, with a fixed rate, over a run of oha at the group's rate (CPU). " +
        "At that rate every server of a group serves the same requests in the same time, so its CPU samples compare " +
        "as CPU time per request, where the closed model's follow each server's own throughput. Own share: samples " +
        "whose innermost frame outside the JDK and Scala's library is the library's; on stack: samples with any of " +
        "its frames. A profiled run's throughput includes the profiler's own cost.",
      Tables.rawTable(head, rows)
    )

  /** Rapier against its peers, each measured in its own group. */
  def peers(results: RunResults): String =
    val rows = results.peers.map(p =>
      List(p.rapier, p.peer, p.scenario, p.users.toString, Figures.interval(p.ratio))
    )
    section(
      "peers",
      "Against peers",
      "Rapier's throughput over a peer library's on the same scenario: the geometric means of their rounds, with " +
        "Welch's 95% interval, since each ran in its own twin's group, minutes apart (the interval carries that drift " +
        "too), unless it has the same twin as Rapier's server and ran in its rounds; zio-http runs on the Netty it " +
        "brings.",
      if rows.isEmpty then "<p>No peer ran beside Rapier in this run.</p>"
      else Tables.table(List("Rapier server", "peer", "scenario", "users", "Rapier over peer"), rows)
    )
