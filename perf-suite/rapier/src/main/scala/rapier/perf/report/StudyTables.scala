package rapier.perf.report

import rapier.perf.{LatencyMs, PercentileSummary, Scenarios, Summary}
import rapier.perf.report.Figures.*
import rapier.perf.report.Svg.Series

/**
 * The latency studies' figures, written alike by every report: for each study and number of users, each server's
 * latency percentiles — for a library beside its ratio to its twin's (above 1 is slower), for a twin beside its A/A
 * band — its CPU time per answer, and the hiccups measured beside it.
 */
object StudyTables:
  /** What every report says before a study's table. */
  val intro: String =
    "Users hold a connection open at a steady pace; the suite's client times each answer from the timestamp it " +
      "carries, in milliseconds. Each percentile is the mean over rounds; for a library, beside it, its ratio to its " +
      "twin's in the same round (geometric mean and 95% interval; above 1 is slower), read against the twin's A/A " +
      "band (*within noise* inside it), then its difference from the twin's in milliseconds (mean of the rounds' " +
      "differences and 95% interval); for a twin, that band and its second JVM's difference from its first. " +
      "CPU efficiency is the twin's CPU time per answer over " +
      "the server's (0.5: twice the twin's CPU). Hiccups: a thread that sleeps 1 ms and records the " +
      "excess, in the server's JVM, in an idle JVM on the same CPU (the OS's share) and in the client's JVM (the " +
      "client's share), over the same window."

  /** The studies of a run: (title, summaries) for each study scenario and number of users, in the order met. */
  def studies(summaries: List[Summary]): List[(String, List[Summary])] =
    val study = summaries.filter(s => Scenarios.byName(s.scenario).exists(!_.isLoad))
    study.map(s => (s.scenario, s.users)).distinct.map { (scenario, users) =>
      s"$scenario · $users users" -> study.filter(s => s.scenario == scenario && s.users == users)
    }

  /** A study's table: its head, and a row per server with each cell's text. */
  def table(rows: List[Summary]): (List[String], List[List[String]]) =
    val names = PercentileSummary.compared.map(_._1)
    // With --profile, each server's share of CPU samples in its library's frames
    val profiled = rows.exists(_.ownCpuShare.isDefined)
    val head = List("server", "compared with") ++ names ++
      List(
        "CPU ms per 1k answers",
        "CPU efficiency vs twin",
        "B per answer",
        "server JVM hiccups",
        "idle JVM hiccups",
        "client JVM hiccups"
      ) ++
      Option.when(profiled)("library's CPU samples")
    val lines = rows.map { s =>
      val cells = names.map(n => s.percentiles.find(_.name == n).fold(if s.status == "ok" then "–" else s.status)(cell))
      List(s.server, s.twin.getOrElse("(twin)")) ++ cells ++ List(
        number(s.cpuMsPer1000, 1),
        s.cpuCompared.fold("–")(compared),
        number(s.allocatedBytesPerRequest, 0),
        hiccups(s.hiccups.flatMap(_.server)),
        hiccups(s.hiccups.flatMap(_.idle)),
        hiccups(s.hiccups.flatMap(_.client))
      ) ++ Option.when(profiled)(librarySamples(s))
    }
    (head, lines)

  /**
   * `4.41 ms · 1.02 [0.95–1.10] · +0.09 ms [-0.21–+0.39]`, `4.41 ms · within noise · …`, or a twin's
   * `4.12 ms · A/A ±8.0% […] · +0.03 ms […]`.
   */
  def cell(p: PercentileSummary): String =
    val ms = s"${number(p.meanMs, 2)} ms"
    val over = p.difference.fold("")(d => s" · ${difference(d)}")
    p.compared.map(c => s"$ms · ${compared(c)}$over").orElse(p.noise.map(b => s"$ms · A/A ${band(b)}$over"))
      .getOrElse(ms)

  /** `+1.23 ms [-0.40–+2.86]`: a library's percentile over its twin's. */
  def difference(d: rapier.perf.Difference): String =
    def signed(x: Double) = f"$x%+.2f"
    s"${signed(d.meanMs)} ms [${signed(d.lowMs)}–${signed(d.highMs)}]"

  /** A meter's p99 / p99.99 / max, in milliseconds. */
  def hiccups(l: Option[LatencyMs]): String =
    l.fold("–")(h => s"p99 ${number(h.p99, 2)} · p99.99 ${number(h.p9999, 2)} · max ${number(h.max, 2)} ms")

  /** Every study as Markdown tables, each under its title. */
  def markdown(summaries: List[Summary]): List[String] =
    studies(summaries).flatMap { (title, rows) =>
      val (head, lines) = table(rows)
      List(
        s"### $title",
        "",
        head.mkString("| ", " | ", " |"),
        head.map(_ => "---").mkString("|", "|", "|")
      ) ++ lines.map(_.mkString("| ", " | ", " |")) :+ ""
    }

  /**
   * The latency studies: per study and number of users, each server's percentiles drawn beside its own JVM's hiccups
   * (dashed), an idle JVM's on the same CPU and the client JVM's (the twin's round, greys), then the table of every
   * figure.
   */
  def html(s: List[Summary], color: Map[String, String]): String =
    val all = StudyTables.studies(s)
    if all.isEmpty then ""
    else
      val names = PercentileSummary.compared.map(_._1)
      def values(l: LatencyMs) =
        List(Some(l.p50), Some(l.p99), Some(l.p999), Some(l.p9999), l.p999999).map(_.getOrElse(0.0))
      val blocks = all.map { (title, rows) =>
        val measured = rows.filter(_.percentiles.nonEmpty)
        val application = measured.map(r => Series(r.server, color(r.server), r.percentiles.map(_.meanMs)))
        val jvms = measured.flatMap(r =>
          r.hiccups.flatMap(_.server).map(h =>
            Series(s"${r.server} JVM hiccups", color(r.server), values(h), dashed = true)
          )
        )
        val twin = measured.find(_.twin.isEmpty).orElse(measured.headOption).flatMap(_.hiccups)
        val idle = twin.flatMap(_.idle).map(h => Series("idle JVM hiccups", "#9ca3af", values(h), dashed = true))
        val client = twin.flatMap(_.client).map(h => Series("client JVM hiccups", "#4b5563", values(h), dashed = true))
        val (head, lines) = StudyTables.table(rows)
        Html.chartBlock(title, Svg.lines(names, application ++ jvms ++ idle ++ client, "ms")) +
          Tables.table(head, lines)
      }
      Html.section("studies", "Latency studies", StudyTables.intro.replace("*", ""), blocks.mkString)
