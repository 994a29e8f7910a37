package rapier.perf

import java.nio.file.{Files, Path}
import java.time.Instant
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * Runs the suite: every server × scenario × users, round after round, each test on a fresh server JVM.
 *
 * A test: start the server pinned to the server CPUs; check one request's answer; warm up with wrk (discarded);
 * read the server's CPU time, allocations and collections; load it with wrk pinned to the load CPUs for the measured
 * time; read them again; stop the server.
 *
 * @param classpaths
 *   the class path of each side, to launch its servers with
 * @param progress
 *   where progress lines go
 */
final class Runner(options: RunOptions, out: Path, classpaths: Map[Side, String], progress: String => Unit):
  private val cpus = Machine.onlineCpus()
  private val (defaultServerCpus, defaultLoadCpus) = Machine.defaultSplit(cpus)
  private val serverCpus = options.serverCpus.map(Machine.parseCpuList).getOrElse(defaultServerCpus)
  private val loadCpus = options.loadCpus.map(Machine.parseCpuList).getOrElse(defaultLoadCpus)

  /** Pinning needs taskset and two disjoint CPU sets; without them, a run still works, and the report says so. */
  val pinned: Boolean = Machine.canPin && serverCpus.nonEmpty && loadCpus.nonEmpty &&
    serverCpus.intersect(loadCpus).isEmpty

  private val java = ProcessHandle.current.info.command.orElse("java")

  val servers: List[ServerSpec] = options.target match
    case Some((host, port)) =>
      List(ServerSpec(
        s"target $host:$port",
        Side.Rapier,
        "",
        128,
        false,
        Implementation.Vanilla,
        None,
        "a server already running"
      ))
    case None => Catalogue.select(options.servers)

  val scenarios: List[Scenario] = Scenarios.select(options.scenarios)

  final case class Test(round: Int, server: ServerSpec, scenario: Scenario, users: Int)

  /** Interleaved: round 1 runs every test, then round 2 does, so that drift of the machine hits all alike. */
  val plan: List[Test] =
    for
      round <- (1 to options.rounds).toList
      server <- servers
      scenario <- scenarios
      users <- options.users
    yield Test(round, server, scenario, users)

  def machine: MachineFacts = Machine.detect(serverCpus, loadCpus, pinned)

  def run(): List[Row] =
    if pinned then pinSelf()
    val scripts = writeScripts()
    val runnable = plan.count(t => t.scenario.servable(t.server))
    var done = 0
    var secondsPerTest = options.warmupSeconds + options.durationSeconds + 3.0
    plan.zipWithIndex.map { (test, i) =>
      if !test.scenario.servable(test.server) then
        row(test, Status.NotApplicable, s"needs a server with ${test.scenario.routes} routes")
      else
        val left = ((runnable - done) * secondsPerTest).toLong.seconds
        progress(
          f"[${i + 1}%3d/${plan.size}] round ${test.round}/${options.rounds}  ${test.server.name}%-26s ${test.scenario.name}%-20s" +
            f" ${test.users}%4d users   ~${left.toMinutes}m${left.toSeconds % 60}%02ds left"
        )
        val started = System.nanoTime()
        val result = runTest(test, scripts(test.scenario.name))
        done += 1
        // The estimate follows what tests really take on this machine.
        secondsPerTest = 0.7 * secondsPerTest + 0.3 * (System.nanoTime() - started) / 1e9
        if result.status != Status.Ok then progress(s"          ${result.status}: ${result.note}")
        result
    }

  /** The runner itself runs beside the load generator, away from the server's CPUs. */
  private def pinSelf(): Unit =
    scala.util.Try(ProcessBuilder(
      "taskset",
      "-a",
      "-p",
      "-c",
      loadCpus.mkString(","),
      ProcessHandle.current.pid.toString
    )
      .redirectErrorStream(true).start().waitFor())

  /** wrk's scripts go with the report; the request bodies they read (up to 5 MB) into a temporary directory. */
  private def writeScripts(): Map[String, Path] =
    val dir = Files.createDirectories(out.resolve("wrk"))
    val bodies = Files.createTempDirectory("perf-bodies")
    bodies.toFile.deleteOnExit()
    scenarios.map { s =>
      val body = s.body.map { b =>
        val file = Files.write(bodies.resolve(s"${s.name}.body"), b)
        file.toFile.deleteOnExit()
        file
      }
      s.name -> Files.writeString(dir.resolve(s"${s.name}.lua"), Wrk.script(s, body))
    }.toMap

  private def runTest(test: Test, script: Path): Row =
    options.target match
      case Some((host, port)) => measure(test, script, host, port, None)
      case None =>
        classpaths.get(test.server.side) match
          case None =>
            row(test, Status.Failed, s"the ${test.server.side} side of the suite is not built (run ./perf to build it)")
          case Some(classpath) =>
            val command = ServerProcess.command(
              java,
              options.jvmOptions,
              classpath,
              test.server,
              0,
              serverCpus.size,
              Option.when(pinned)(serverCpus),
              stopOnEof = true
            )
            ServerProcess.start(command) match
              case Left(why) => row(test, Status.Failed, why)
              case Right(server) =>
                try measure(test, script, "127.0.0.1", server.port, Some(server))
                finally server.stop()

  private def measure(test: Test, script: Path, host: String, port: Int, server: Option[ServerProcess]): Row =
    Probe.check(host, port, test.scenario) match
      case Some(wrong) => row(test, Status.Invalid, s"wrong answer before the run: $wrong")
      case None =>
        val url = s"http://$host:$port${test.scenario.path}"
        val warmedUp = warmUp(url, test.users, script)
        val cpuBefore = CpuTimes.now()
        val statsBefore = server.flatMap(_.stats())
        val serverCpuBefore = server.flatMap(_.cpuSeconds)
        val measured = wrk(url, test.users, options.durationSeconds, script)
        val cpuAfter = CpuTimes.now()
        val statsAfter = server.flatMap(_.stats())
        val serverCpuAfter = server.flatMap(_.cpuSeconds)
        measured match
          case Left(why) => row(test, Status.Failed, why)
          case Right(w) =>
            val seconds = w.durationMicros / 1e6
            val perRequest = (x: Double) => if w.requests > 0 then Some(x / w.requests) else None
            val serverCpuSeconds = for a <- serverCpuAfter; b <- serverCpuBefore yield a - b
            val serverUtilization = serverCpuSeconds.map(_ / seconds / math.max(1, serverCpus.size))
            val loadUtilization = Option(cpuAfter.utilizationSince(cpuBefore, loadCpus)).filterNot(_.isNaN)
            // wrk saturated its CPUs while the server had time to spare: the run measured the load generator.
            val loadBound = pinned && loadUtilization.exists(_ >= 0.9) && serverUtilization.exists(_ < 0.9)
            val errors =
              s"connect ${w.connect}, read ${w.read}, write ${w.write}, non-2xx ${w.status}, timeout ${w.timeout}"
            Row(
              round = test.round,
              server = test.server.name,
              implementation = test.server.implementation.toString,
              scenario = test.scenario.name,
              users = test.users,
              status = if w.errors > 0 || w.requests == 0 then Status.Invalid else Status.Ok,
              note =
                if w.requests == 0 then "no request was answered"
                else if w.errors > 0 then s"${w.errors} errors ($errors)"
                else if loadBound then "the load generator, not the server, was the bottleneck"
                else if pinned && serverUtilization.exists(_ < 0.9) then
                  f"the server was busy only ${serverUtilization.get * 100}%.0f%% of the time: its throughput was limited elsewhere"
                else "",
              requests = w.requests,
              durationSeconds = seconds,
              throughput = w.throughput,
              latencyMs = Some(LatencyMs.of(w.latency)),
              errors = w.errors,
              serverCpuUtilization = serverUtilization,
              loadCpuUtilization = loadUtilization,
              loadBound = loadBound,
              cpuMsPer1000 = serverCpuSeconds.flatMap(s => perRequest(s * 1000 * 1000)),
              allocatedBytesPerRequest =
                for a <- statsAfter; b <- statsBefore; v <- perRequest((a.allocatedBytes - b.allocatedBytes).toDouble)
                yield v,
              gcCount = for a <- statsAfter; b <- statsBefore yield a.gcCount - b.gcCount,
              gcTimeMs = for a <- statsAfter; b <- statsBefore yield a.gcTimeMillis - b.gcTimeMillis,
              peakRssMiB = server.flatMap(_.peakRssMiB),
              warmupSeconds = warmedUp
            )

  /**
   * Warms a server up: `--warmup` seconds, then one-second slices until two in a row agree within 5% on
   * throughput, for at most four times `--warmup` in all. A fixed warm-up is not enough: with the
   * server pinned to one CPU, its JIT compiler shares that CPU, and a larger stack compiles for longer — a short
   * warm-up then measures the compiler, not the server. Returns the seconds spent.
   */
  private def warmUp(url: String, users: Int, script: Path): Int =
    if options.warmupSeconds == 0 then 0
    else
      wrk(url, users, options.warmupSeconds, script)
      val limit = 4 * options.warmupSeconds
      var spent = options.warmupSeconds
      var previous = wrk(url, users, 1, script).map(_.throughput).getOrElse(0.0)
      spent += 1
      var stable = false
      while !stable && spent < limit do
        val current = wrk(url, users, 1, script).map(_.throughput).getOrElse(0.0)
        spent += 1
        stable = current > 0 && math.abs(current - previous) <= 0.05 * math.max(current, previous)
        previous = current
      spent

  private def wrk(url: String, users: Int, seconds: Int, script: Path): Either[String, WrkResult] =
    val command = Wrk.command(url, users, seconds, script, Option.when(pinned)(loadCpus))
    scala.util.Try {
      val process = ProcessBuilder(command*).redirectErrorStream(true).start()
      val output = String(process.getInputStream.readAllBytes())
      process.waitFor()
      output
    }.toEither.left.map(e => s"wrk did not run: $e").flatMap(Wrk.parse)

  private def row(test: Test, status: String, note: String): Row =
    Row(
      test.round,
      test.server.name,
      test.server.implementation.toString,
      test.scenario.name,
      test.users,
      status,
      note,
      0,
      0,
      0,
      None,
      0,
      None,
      None,
      false,
      None,
      None,
      None,
      None,
      None,
      0
    )

object Runner:
  def now(): String = Instant.now().toString

  /** A class path from a file written by the build, or none when the file is missing. */
  def classpathFrom(file: Path): Option[String] =
    if Files.isRegularFile(file) then Some(Files.readString(file).trim).filter(_.nonEmpty) else None

  def listFiles(dir: Path): List[Path] = Files.list(dir).iterator.asScala.toList
