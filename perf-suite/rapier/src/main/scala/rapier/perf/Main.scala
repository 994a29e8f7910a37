package rapier.perf

import rapier.perf.report.{Baseline, Csv, Html, Markdown, Terminal}

import java.nio.file.{Files, Path, Paths}
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/** `./perf`: the performance suite. See [[Cli.usage]]. */
object Main:
  def main(args: Array[String]): Unit = sys.exit(run(args.toList))

  /** Runs a command and returns the exit code: 0 done, 2 bad arguments or setup, 3 regression against a baseline. */
  def run(args: List[String]): Int = args match
    case "ws" :: _ =>
      System.err.println(
        "perf: the WebSocket and SSE studies are scenarios of the suite now: ./perf -s SERVERS -m WebSocketLatency " +
          "(or WebSocketEcho, SseLatency) -u USERS --requests N (./perf --help says more)"
      )
      2
    case _ => suite(args)

  private def suite(args: List[String]): Int = Cli.parse(args) match
    case Left(message) =>
      System.err.println(s"perf: $message\n")
      System.err.println(Cli.usage)
      2
    case Right(Command.Help) =>
      println(Cli.usage)
      0
    case Right(Command.ListCatalogue) =>
      println("Servers:")
      Catalogue.servers.foreach(s =>
        println(f"  ${s.name}%-26s ${s.description}${s.twin.fold("")(t => s" (compared with $t)")}")
      )
      println("\nScenarios:")
      Scenarios.all.foreach(s => println(f"  ${s.name}%-20s ${s.description}"))
      0
    case Right(Command.Serve(name, port)) => serve(name, port)
    case Right(Command.Render(file)) => render(file)
    case Right(Command.Run(options)) => runSuite(options, args)
    case Right(Command.Attack(options)) =>
      rapier.perf.attack.Attack.run(options, classpaths, Cli.commandLine(args), outDir(options.run, "attack-"))

  /** Where a run's report goes: `--out`, or a folder of `perf-results` named by the time; created. */
  private def outDir(o: RunOptions, prefix: String): Path =
    val out = o.out.getOrElse(
      Paths.get("perf-results", prefix + LocalDateTime.now.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmmss")))
    )
    Files.createDirectories(out)
    out

  /**
   * The class path of each side: files the build wrote, named by ./perf in system properties; the runner's own
   * class path for Rapier's side when run otherwise (from tests, or sbt).
   */
  private[perf] def classpaths: Map[Side, String] =
    def fromProperty(side: Side) =
      Option(System.getProperty(side.classpathProperty)).flatMap(f => Runner.classpathFrom(Paths.get(f)))
    val rapier = fromProperty(Side.Rapier).getOrElse(System.getProperty("java.class.path"))
    Map(Side.Rapier -> rapier) ++
      Side.values.filter(_ != Side.Rapier).flatMap(side => fromProperty(side).map(side -> _))

  private def serve(name: String, port: Int): Int =
    val spec = Catalogue.byName(name).get
    classpaths.get(spec.side) match
      case None =>
        System.err.println(s"perf: the ${spec.side} side of the suite is not built; run it through ./perf")
        2
      case Some(cp) =>
        val java = ProcessHandle.current.info.command.orElse("java")
        val command = ServerProcess.command(
          java,
          RunOptions().jvmOptions,
          cp,
          spec,
          port,
          Runtime.getRuntime.availableProcessors,
          None,
          stopOnEof = false
        )
        println(s"Starting ${spec.name}: ${spec.description}. Ctrl-C stops it.")
        val server = ProcessBuilder(command.args*).inheritIO().start()
        // Ctrl-C stops the server and this JVM alike; a SIGTERM to this JVM alone stops the server from here. Once
        // the server is gone, its temporary directory goes too
        Runtime.getRuntime.addShutdownHook(Thread(() => command.end(server, forcibly = false)))
        server.waitFor()

  /** The reports of an earlier run, written again from its rows (summaries recomputed). */
  private def render(file: java.nio.file.Path): Int =
    if !Files.isRegularFile(file) then
      System.err.println(s"perf: no such file: $file")
      2
    else
      RunResults.read(file) match
        case Left(why) =>
          System.err.println(s"perf: $why")
          2
        case Right(old) =>
          val results = RunResults.of(old.meta, old.rows)
          val dir = Option(file.toAbsolutePath.getParent).getOrElse(Paths.get("."))
          // A committed run keeps only its gzipped results: its reports are written beside it, the json left as it is.
          if file.getFileName.toString.endsWith(".gz") then writeReports(dir, results) else write(dir, results)
          println(Terminal.summary(results))
          println(s"\nReport: ${dir.resolve("report.html")}")
          0

  private def write(out: java.nio.file.Path, results: RunResults): Unit =
    Files.write(out.resolve("results.json"), RunResults.toJson(results))
    writeReports(out, results)

  private def writeReports(out: java.nio.file.Path, results: RunResults): Unit =
    Files.writeString(out.resolve("results.csv"), Csv.render(results.rows))
    Files.writeString(out.resolve("report.html"), Html.render(results))
    Files.writeString(out.resolve("summary.md"), Markdown.render(results))

  private def runSuite(o: RunOptions, args: List[String]): Int =
    val loads = Scenarios.select(o.scenarios).exists(_.isLoad)
    if loads && Wrk.version.isEmpty then
      System.err.println("perf: wrk is not installed (on Debian or Ubuntu: apt-get install wrk)")
      return 2
    if o.scenarios != List("*") && Scenarios.select(o.scenarios).exists(_.http2) && H2load.version.isEmpty then
      System.err.println("perf: the HTTP/2 scenarios need h2load (on Debian or Ubuntu: apt-get install nghttp2-client)")
      return 2
    if o.rateGiven && o.rate != FixedRate.Off && Oha.executable.isEmpty then
      System.err.println("perf: --rate needs oha, the open-model load generator: cargo install oha --version 1.16.0")
      return 2
    if loads && o.rate == FixedRate.Auto && !o.rateGiven && Oha.executable.isEmpty then
      System.err.println(
        "perf: note: oha is not installed, so the fixed-rate window is skipped (cargo install oha --version 1.16.0)"
      )
    val out = outDir(o, "")
    val runner = Runner(o, out, classpaths, line => System.err.println(line))
    if !runner.pinned then
      System.err.println("perf: note: servers and wrk are not pinned to separate CPUs (needs Linux, taskset, 2+ CPUs)")
    val started = Runner.now()
    val rows = runner.run()
    val meta = Meta(
      started,
      Runner.now(),
      Cli.commandLine(args),
      runner.machine,
      o.durationSeconds,
      o.warmupSeconds,
      o.rounds,
      o.users,
      o.jvmOptions,
      o.target.map((h, p) => s"$h:$p"),
      fixedRate =
        Option.when(rows.exists(_.fixedRate.isDefined))(s"${o.rate.describe}, with ${Oha.version.getOrElse("oha")}"),
      profiled = o.profile,
      starts = o.starts,
      studies = Option.when(Scenarios.select(o.scenarios).exists(!_.isLoad))(
        s"${o.studyRequests} messages (events) per user and round, ${o.studyIntervalMillis} ms apart, answered (sent) " +
          s"at the servers' ${o.studyTickMillis} ms tick, after ${o.studyWarmupRequests} in each server's warm-up"
      )
    )
    val results = RunResults.of(meta, rows)
    write(out, results)
    println(Terminal.summary(results))
    println(s"\nReport: ${out.resolve("report.html").toAbsolutePath}")
    o.baseline match
      case None => 0
      case Some(file) =>
        RunResults.read(file) match
          case Left(why) =>
            System.err.println(s"perf: cannot use the baseline $file: $why")
            2
          case Right(base) =>
            val (regressions, compared) = Baseline.compare(base.summaries, results.summaries, o.maxRegression)
            if regressions.isEmpty then
              println(s"Baseline: $compared ratio(s) compared with $file, none dropped more than ${o.maxRegression}%.")
              0
            else
              println(s"Baseline: ${regressions.size} of $compared ratio(s) dropped more than ${o.maxRegression}%:")
              regressions.foreach(r => println(s"  REGRESSION $r"))
              3
