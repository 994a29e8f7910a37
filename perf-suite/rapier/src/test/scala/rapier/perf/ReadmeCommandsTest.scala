package rapier.perf

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.concurrent.duration.*
import scala.jdk.OptionConverters.*

/**
 * The `./perf` commands the guide's performance page shows, as written. Each is read as `./perf` reads it, and must be accepted and plan
 * what its comment says; the quick ones run for real: `--list`, `--help`, and `serve`, whose server is started and
 * checked on every scenario it serves. The long runs (minutes to hours) are planned here and run by hand: their
 * results are the committed runs under docs/perf/, each with its command.
 */
class ReadmeCommandsTest extends munit.FunSuite:
  override def munitTimeout: Duration = 3.minutes

  private val readme = Files.readString(Path.of("../../docs/performance.md"))

  /** The commands of the sh block under the suite's heading, each split into its arguments as a shell would. */
  private val commands: List[(String, List[String])] =
    val block = """(?s)## The performance suite\n.*?```sh\n(.*?)```""".r.findFirstMatchIn(readme).map(_.group(1))
    block.toList.flatMap(_.linesIterator).map(_.takeWhile(_ != '#').trim).filter(_.nonEmpty).map { line =>
      assert(line.startsWith("./perf"), line)
      line -> words(line.stripPrefix("./perf").trim)
    }

  /** Words as a shell splits them, with single quotes holding a word together. */
  private def words(line: String): List[String] =
    """'([^']*)'|(\S+)""".r.findAllMatchIn(line).map(m => Option(m.group(1)).getOrElse(m.group(2))).toList

  private def parsed(args: List[String]): Command =
    Cli.parse(args).fold(why => fail(s"./perf ${args.mkString(" ")}: $why"), identity)

  test("the performance page shows the suite's commands, and every one is accepted"):
    assert(commands.size >= 8, commands.map(_._1))
    for (line, args) <- commands do parsed(args)

  test("the long runs plan what the performance page says they do"):
    def plan(args: List[String]) = parsed(args) match
      case Command.Run(o) => Runner(o, Files.createTempDirectory("readme"), Map.empty, _ => ()).plan
      case other => fail(s"not a run: $other")
    val default = plan(Nil)
    assertEquals(default.map(_.scenario.name).distinct, List("SimpleGet", "PostBytes"))
    assertEquals(
      default.head.entries.map(_.label),
      List("netty.Vanilla", "netty.future.Rapier", "netty.Vanilla (A/A)")
    )
    val everything = commands.find(_._1.contains("-u 1,64")).map(c => plan(c._2)).getOrElse(fail("no full run"))
    assertEquals(everything.flatMap(_.entries.map(_.server)).distinct.size, Catalogue.servers.size)
    assertEquals(everything.map(_.scenario.name).distinct.size, Scenarios.all.size)
    assertEquals(everything.map(_.users).distinct, List(1, 64))
    val baseline = commands.find(_._1.contains("--baseline")).getOrElse(fail("no baseline command"))
    val file = baseline._2.dropWhile(_ != "--baseline").drop(1).head
    assert(RunResults.read(Path.of("../..", file)).isRight, file)

  /** Runs a small study through the suite, as `./perf` would; its results. */
  private def study(
      servers: List[String],
      scenario: String,
      users: Int,
      requests: Int,
      warmup: Int,
      rounds: Int,
      more: List[String] = Nil
  ): (RunResults, Path) =
    val out = Files.createTempDirectory("study")
    val args = List(
      "-s",
      servers.mkString(","),
      "-m",
      scenario,
      "-u",
      users.toString,
      "--requests",
      requests.toString,
      "--warmup-requests",
      warmup.toString,
      "--interval-ms",
      "20",
      "--tick-ms",
      "20",
      "-r",
      rounds.toString,
      "--out",
      out.toString
    ) ++ BriefRuns.cliOptions ++ more
    assertEquals(Main.run(args), 0)
    assert(Files.readString(out.resolve("summary.md")).contains("## Latency studies"))
    assert(Files.readString(out.resolve("report.html")).contains("""<section id="studies">"""))
    (RunResults.fromJson(Files.readAllBytes(out.resolve("results.json"))).fold(fail(_), identity), out)

  test("the page's WebSocket study plans what it says, and a small one runs: every user answered, every meter read"):
    val shown = commands.filter(_._2.contains("WebSocketLatency"))
    assert(shown.nonEmpty, "the performance page shows no WebSocket study")
    for (line, args) <- shown do
      parsed(args) match
        case Command.Run(o) =>
          val plan = Runner(o, Files.createTempDirectory("readme"), Map.empty, _ => ()).plan
          assert(plan.forall(_.scenario.study.contains(Study.Ticks)), line)
          assert(plan.head.entries.map(_.label).contains("netty.Vanilla (A/A)"), line)
        case other => fail(s"$line is not a run: $other")
    val (results, _) =
      study(List("netty.future.Rapier"), "WebSocketLatency", users = 4, requests = 5, warmup = 3, rounds = 2)
    assertEquals(
      results.rows.map(r => (r.server, r.replica)).toSet,
      Set(("netty.Vanilla", 1), ("netty.future.Rapier", 1), ("netty.Vanilla", 2))
    )
    for r <- results.rows do
      assertEquals((r.status, r.errors, r.requests), (Status.Ok, 0L, 40L), r.note)
      assertEquals(r.slices.size, 2)
      assert(r.slices.forall(_.latencyMs.exists(_.p999999.isDefined)), r.slices)
      assert(r.hiccups.exists(h => h.server.isDefined && h.idle.isDefined && h.client.isDefined), r.hiccups)
      // Resident memory once started, before the first user, and the peak that includes it
      val (ready, peak) = (r.readyRssMiB.getOrElse(fail(s"no ready RSS: $r")), r.peakRssMiB.get)
      assert(ready > 10 && ready <= peak, s"ready $ready MiB, peak $peak MiB")
    val rapier = results.summaries.find(_.server == "netty.future.Rapier").get
    assertEquals(rapier.percentiles.map(_.name), List("p50", "p99", "p99.9", "p99.99", "p99.9999"))
    assert(rapier.percentiles.forall(_.compared.exists(_.band.isDefined)), rapier.percentiles)
    assert(rapier.percentiles.forall(_.difference.exists(_.rounds == 2)), rapier.percentiles)
    assert(rapier.compared.isEmpty, "a study compares latency, not throughput")
    val twin = results.summaries.find(_.server == "netty.Vanilla").get
    assert(twin.percentiles.forall(p => p.noise.isDefined && p.compared.isEmpty), twin.percentiles)

  // Every server's events reach the study's client in ServersTest; here the study runs whole, in two groups
  test("the SSE study runs on two backends' twins and Rapier: every user gets its events"):
    assert(commands.exists(_._2.contains("SseLatency")), "the performance page shows no SSE study")
    val servers = List("netty.future.Rapier", "http4s.cats.Rapier")
    val (results, _) = study(servers, "SseLatency", users = 3, requests = 4, warmup = 0, rounds = 1)
    assertEquals(results.rows.size, servers.size * 3)
    for r <- results.rows do assertEquals((r.status, r.requests), (Status.Ok, 12L), s"${r.server}: ${r.note}")

  test("--profile profiles a study's servers under the study's own client: CPU and allocation flame graphs"):
    val (results, out) = study(
      List("netty.future.Rapier"),
      "WebSocketEcho",
      users = 4,
      requests = 100,
      warmup = 5,
      rounds = 1,
      more = List("--profile")
    )
    assertEquals(results.rows.size, 3)
    for r <- results.rows do
      val profile = r.profile.getOrElse(fail(s"${r.server}: no profile"))
      assertEquals(profile.note, "", r.server)
      for graph <- List(profile.cpuFlamegraph, profile.allocFlamegraph) do
        val file = out.resolve(graph.getOrElse(fail(s"${r.server}: a flame graph is missing")))
        assert(Files.size(file) > 0, file)
      assert(profile.cpuSamples > 0, s"${r.server}: no CPU samples while the client ran")
    assert(Files.readString(out.resolve("summary.md")).contains("library's CPU samples"))
    assert(Files.readString(out.resolve("report.html")).contains("""<section id="profiles">"""))

  test("--list and --help run"):
    for (_, args) <- commands if args == List("--list") || args.contains("--help") do assertEquals(Main.run(args), 0)

  /** The performance page's `serve` command: its line, its arguments, and what ./perf reads in them. */
  private def serveCommand: (String, List[String], Command.Serve) =
    val (line, args) = commands.find(_._2.headOption.contains("serve")).getOrElse(fail("no serve command"))
    parsed(args) match
      case serve: Command.Serve => (line, args, serve)
      case other => fail(s"$line is not serve: $other")

  test("serve starts the server it names, which answers every scenario it serves"):
    val (line, _, Command.Serve(name, port)) = serveCommand
    val spec = Catalogue.byName(name).get
    val java = ProcessHandle.current.info.command.orElse("java")
    val command = ServerProcess.command(
      java,
      List("-Xmx512m"),
      Main.classpaths(spec.side),
      spec,
      port,
      1,
      None,
      stopOnEof = true
    )
    val server = ServerProcess.start(command).fold(why => fail(s"$line: $why"), identity)
    try
      assertEquals(server.port, port)
      for scenario <- Scenarios.all.filter(_.servable(spec)) do
        assertEquals(Probe.check("127.0.0.1", port, scenario), None, scenario.name)
    finally server.stop()

  test("serve's server stops with ./perf, its temporary directory deleted, also when a SIGTERM stops ./perf alone"):
    val (line, args, Command.Serve(_, port)) = serveCommand
    val java = ProcessHandle.current.info.command.orElse("java")
    val perf = ProcessBuilder(List(java, "-cp", System.getProperty("java.class.path"), "rapier.perf.Main") ++ args*)
      .redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.DISCARD)
      .start()
    val get = Scenarios.byName("SimpleGet").get
    def answered = Probe.check("127.0.0.1", port, get).isEmpty
    // The server, once started: killed at the end whatever happened, as ./perf, once stopped, can't be asked for it
    var server: Option[ProcessHandle] = None
    try
      val deadline = System.nanoTime + 60.seconds.toNanos
      while !answered && System.nanoTime < deadline do Thread.sleep(200)
      assert(answered, s"$line: no server answers on $port")
      server = perf.toHandle.children.findFirst.toScala
      val child = server.getOrElse(fail(s"$line started no server"))
      // The server's command line, whole (its arguments alone are not always kept)
      val tmpDir = """-Djava.io.tmpdir=(\S+)""".r
        .findFirstMatchIn(child.info.commandLine.orElse(""))
        .map(m => Path.of(m.group(1)))
        .getOrElse(fail(s"no temporary directory on ${child.info.commandLine}"))
      assert(Files.isDirectory(tmpDir), tmpDir)
      perf.destroy()
      assert(perf.waitFor(30, TimeUnit.SECONDS), "./perf did not stop")
      assert(!child.isAlive, "the server outlived ./perf")
      assert(!Files.exists(tmpDir), s"$tmpDir is left")
    finally
      perf.destroyForcibly()
      server.foreach(_.destroyForcibly())
