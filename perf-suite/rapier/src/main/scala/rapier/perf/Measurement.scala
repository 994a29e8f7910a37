package rapier.perf

import java.nio.file.Path

/**
 * One comparison group on one scenario: a vanilla twin, the libraries compared with it and the twin's second JVM (the
 * A/A pair), all running at once on the server CPUs, measured in interleaved rounds. The machine this runs on drifts
 * by tens of percent within minutes; two servers measured seconds apart see the same machine, so each library's ratio
 * to its twin is taken between their slices of the same round.
 *
 *   1. one request checks each server's answer;
 *   2. each server warms up in turn, one-second wrk runs until its throughput is steady ([[WarmUp]]);
 *   3. one settling round, not counted, then `--rounds` rounds: in each, every server in turn (the order rotating
 *      from round to round) gets `-d` seconds of the closed model (wrk) and, with a fixed rate, `-d` seconds of the
 *      open model (oha at the group's rate, latency from each request's intended send time); CPU time, allocations and
 *      collections are read around every slice;
 *   4. with `--profile`, each server in turn: async-profiler's CPU samples over `-d` seconds of wrk, then its
 *      allocation samples over as many, then, with a fixed rate, its CPU samples over `-d` seconds of oha at that rate;
 *   5. each server's own record of its CPU, heap and resident memory every 250 ms, with its phases marked.
 *
 * @param loadCpus
 *   where the load generators are pinned, when pinned
 * @param serverCpuCount
 *   how many CPUs the servers have, for their utilization
 */
final class Measurement(
    options: RunOptions,
    out: Path,
    scripts: Map[String, Measurement.Script],
    loadCpus: Option[List[Int]],
    serverCpuCount: Int
):
  private val pinned = loadCpus.isDefined

  /** oha, when the run has an open-model window. */
  private val oha: Option[String] = options.rate match
    case FixedRate.Off => None
    case _ => Oha.executable

  val fixedRates: Boolean = oha.isDefined

  private val sliceSeconds = options.durationSeconds

  private val profiling = ProfileRuns(out)

  def measure(start: Int, scenario: Scenario, users: Int, members: List[Member]): List[Row] =
    val script = scripts(scenario.name)
    def unmeasured(m: Member, status: String, note: String) =
      Row.unmeasured(start, m.spec, scenario.name, users, m.replica, status, note)
    val (answering, wrong) = members.map(m => m -> Probe.check(m.host, m.port, scenario)).partition(_._2.isEmpty)
    val refused = wrong.map((m, why) => m -> unmeasured(m, Status.Invalid, s"wrong answer before the run: ${why.get}"))
    val marks = answering.map((m, _) => m -> List.newBuilder[(String, Long)]).toMap
    def mark(m: Member, label: String) = marks(m) += label -> System.currentTimeMillis
    val live = answering.map(_._1)
    // Each server's resident memory once started and probed, before any load: what its peak owes to its start.
    val readyRss = live.map(m => m -> m.server.flatMap(_.rssMiB)).toMap
    live.foreach(mark(_, "warm-up"))
    val warm = warmUp(live, scenario, users, script.lua)
    val rate = groupRate(live, warm)
    val slices = scala.collection.mutable.Map[Member, List[Measurement.Measured]]().withDefaultValue(Nil)
    // Round -1 settles: every server once through both kinds of load, not counted. Measured here, the first round
    // came out 10–30% worse than the others on every server, the JIT still meeting the open model's requests.
    for round <- -1 until options.rounds do
      val order = if live.isEmpty then Nil else live.drop((round + 1) % live.size) ++ live.take((round + 1) % live.size)
      for m <- order do
        if round == 0 then mark(m, "measured")
        val closed = closedSlice(m, scenario, users, script.lua)
        val open = rate.map(r => openSlice(m, scenario, users, r))
        if round >= 0 then slices(m) = slices(m) :+ Measurement.Measured(round, closed, open)
        if round == options.rounds - 1 then mark(m, "end of measurement")
    val profiles = live.map { m =>
      m -> Option.when(options.profile && m.server.isDefined)(
        profiling.profile(m, start, scenario, users, mark, rate.map(r => () => ohaRun(m, scenario, users, r)))(() =>
          closedRun(m.url(scenario), scenario, users, sliceSeconds, script.lua)
        )
      )
    }.toMap
    val rows = live.map { m =>
      val timeline = m.server.flatMap(_.samples()).map(_.timeline(marks(m).result()))
      m -> row(start, m, scenario, users, warm(m), slices(m), rate, m.server.flatMap(_.peakRssMiB)).copy(
        timeline = timeline,
        profile = profiles(m),
        readyRssMiB = readyRss(m)
      )
    }
    val byMember = (rows ++ refused).toMap
    members.map(byMember)

  /**
   * The group's fixed rate: `--rate`, or half its twin's steady throughput at the end of its warm-up (the level the
   * warm-up settled at), the same for every server of the group.
   */
  private def groupRate(live: List[Member], warm: Map[Member, WarmUp.Run]): Option[Double] =
    oha.flatMap(_ =>
      options.rate match
        case FixedRate.PerSecond(r) => Some(r)
        case _ =>
          val twin = live.find(m => m.spec.isVanilla && m.replica == 1).orElse(live.headOption)
          twin.flatMap(t => WarmUp.level(warm(t).series)).filter(_ > 0).map(_ / 2)
    )

  private def closedSlice(m: Member, scenario: Scenario, users: Int, lua: Path): Measurement.Closed =
    val window = Window(m.server, loadCpus)
    val result = closedRun(m.url(scenario), scenario, users, sliceSeconds, lua)
    Measurement.Closed(result, window.close())

  private def openSlice(m: Member, scenario: Scenario, users: Int, rate: Double): Measurement.Open =
    val window = Window(m.server, loadCpus)
    val result = ohaRun(m, scenario, users, rate)
    Measurement.Open(rate, result, window.close())

  /** oha against one server at `rate` for one slice's duration; what it measured. */
  private def ohaRun(m: Member, scenario: Scenario, users: Int, rate: Double): Either[String, OhaResult] =
    val body = scripts(scenario.name).body
    val command = Oha.command(oha.get, m.url(scenario), users, sliceSeconds, rate, scenario, body, loadCpus)
    Measurement.exec(command).flatMap(Oha.parse)

  /** A server's row: its slices added up (requests, time, CPU, allocations), each slice kept for the ratios. */
  private def row(
      start: Int,
      m: Member,
      scenario: Scenario,
      users: Int,
      warm: WarmUp.Run,
      measured: List[Measurement.Measured],
      rate: Option[Double],
      peakRssMiB: Option[Double]
  ): Row =
    val failed = measured.collect { case Measurement.Measured(_, Measurement.Closed(Left(why), _), _) => why }
    val runs = measured.collect { case Measurement.Measured(c, Measurement.Closed(Right(w), r), _) => (c, w, r) }
    val requests = runs.map(_._2.requests).sum
    val seconds = runs.map(_._2.durationMicros).sum / 1e6
    val errors = runs.map(_._2.errors).sum
    val throughput = if seconds > 0 then requests / seconds else 0.0
    val totals = Totals.of(runs.map(_._3), seconds, serverCpuCount)
    import totals.{serverUtilization, total}
    val perRequest = (x: Double) => Option.when(requests > 0)(x / requests)
    // wrk saturated its CPUs while the server had time to spare: the run measured the load generator.
    val loadBound = pinned && totals.loadBound
    val status =
      if failed.nonEmpty then Status.Failed else if errors > 0 || requests == 0 then Status.Invalid else Status.Ok
    Row(
      start = start,
      server = m.spec.name,
      implementation = m.spec.implementation.toString,
      scenario = scenario.name,
      users = users,
      status = status,
      note =
        if failed.nonEmpty then failed.head
        else if requests == 0 then "no request was answered"
        else if errors > 0 then s"$errors errors (${runs.map(_._2).filter(_.errors > 0).map(Measurement.errors).head})"
        else if loadBound then "the load generator, not the server, was the bottleneck"
        else if pinned && serverUtilization.exists(_ < 0.9) then
          f"the server was busy only ${serverUtilization.get * 100}%.0f%% of the time: its throughput was limited elsewhere"
        else "",
      requests = requests,
      durationSeconds = seconds,
      throughput = throughput,
      latencyMs = LatencyMs.mean(runs.map(r => LatencyMs.of(r._2.latency))),
      errors = errors,
      serverCpuUtilization = serverUtilization,
      loadCpuUtilization = totals.loadUtilization,
      loadBound = loadBound,
      cpuMsPer1000 = totals.serverCpuSeconds.flatMap(s => perRequest(s * 1e6)),
      allocatedBytesPerRequest = total(_.allocatedBytes).flatMap(b => perRequest(b.toDouble)),
      gcCount = total(_.gcCount),
      gcTimeMs = total(_.gcTimeMillis),
      peakRssMiB = peakRssMiB,
      warmupSeconds = warm.seconds,
      replica = m.replica,
      steadyAfterSeconds = warm.steadyAfter,
      warmupThroughput = warm.series.toList,
      warmupCompileMs = warm.compileMs.toList,
      fixedRate = rate.map(r => fixedRateRun(r, measured.flatMap(_.open))),
      slices = measured.map(_.slice)
    )

  /** The open-model slices of a server, added up. */
  private def fixedRateRun(rate: Double, slices: List[Measurement.Open]): FixedRateRun =
    val runs = slices.collect { case Measurement.Open(_, Right(o), readings) => (o, readings) }
    val failures = slices.collect { case Measurement.Open(_, Left(why), _) => why }
    val requests = runs.map(_._1.requests).sum
    val seconds = runs.map(_._1.seconds).sum
    val errors = runs.map(_._1.errors).sum
    val achieved = if seconds > 0 then requests / seconds else 0.0
    val cpuSeconds = Option.when(runs.nonEmpty && runs.forall(_._2.serverCpuSeconds.isDefined))(
      runs.flatMap(_._2.serverCpuSeconds).sum
    )
    val utilization = cpuSeconds.filter(_ => seconds > 0).map(_ / seconds / math.max(1, serverCpuCount))
    val held = failures.isEmpty && errors == 0 && achieved >= 0.97 * rate
    val note =
      if failures.nonEmpty then failures.head
      else if errors > 0 then s"$errors requests failed"
      else if held then ""
      else if utilization.exists(_ >= 0.9) then f"the server could not keep up: $achieved%,.0f of $rate%,.0f requests/s"
      else f"the rate was not held ($achieved%,.0f of $rate%,.0f requests/s) with the server not saturated"
    FixedRateRun(
      targetRate = rate,
      achievedRate = achieved,
      requests = requests,
      errors = errors + failures.size,
      latencyMs = LatencyMs.mean(runs.map(_._1.latencyMs)).getOrElse(LatencyMs(0, 0, 0, 0, 0, 0, 0)),
      cpuMsPer1000 = cpuSeconds.filter(_ => requests > 0).map(_ * 1e6 / requests),
      serverCpuUtilization = utilization,
      loadCpuUtilization = Option.when(runs.nonEmpty && runs.forall(_._2.loadUtilization.isDefined))(
        runs.flatMap(_._2.loadUtilization).sum / runs.size
      ),
      note = note
    )

  /**
   * Warm-up in one-second wrk runs, the group's servers taking turns: each gets at least `--warmup` seconds, then more
   * until two of its seconds in a row agree within 5%, for at most four times `--warmup` in all. A fixed warm-up is not
   * enough: with the server pinned to one CPU, its JIT compiler shares that CPU, and a larger stack compiles for
   * longer. Taking turns, no server sits idle for long before the measurement starts (one that had, measured less
   * in its first slice).
   */
  private def warmUp(members: List[Member], scenario: Scenario, users: Int, lua: Path): Map[Member, WarmUp.Run] =
    val limit = math.max(4 * options.warmupSeconds, options.warmupSeconds + 2)
    val series = scala.collection.mutable.Map[Member, Vector[Double]]().withDefaultValue(Vector.empty)
    val compiling = scala.collection.mutable.Map[Member, Vector[Double]]().withDefaultValue(Vector.empty)
    def warming(m: Member) =
      val s = series(m)
      options.warmupSeconds > 0 && s.size < limit &&
      (s.size < options.warmupSeconds || !WarmUp.steady(s, compiling(m)))
    while members.exists(warming) do
      for m <- members if warming(m) do
        val before = m.server.flatMap(_.stats())
        series(m) = series(m) :+ closedRun(m.url(scenario), scenario, users, 1, lua).map(_.throughput).getOrElse(0.0)
        for b <- before; a <- m.server.flatMap(_.stats()) do
          compiling(m) = compiling(m) :+ (a.compileMillis - b.compileMillis).toDouble
    members.map { m =>
      m -> WarmUp.Run(series(m).size, WarmUp.steadyAfter(series(m), compiling(m)), series(m), compiling(m))
    }.toMap

  // wrk, or h2load for an HTTP/2 scenario
  private def closedRun(
      url: String,
      scenario: Scenario,
      users: Int,
      seconds: Int,
      lua: Path
  ): Either[String, WrkResult] =
    if scenario.http2 then H2load.run(url, users, seconds, scenario, scripts(scenario.name).body, loadCpus)
    else Measurement.exec(Wrk.command(url, users, seconds, lua, loadCpus)).flatMap(Wrk.parse)

object Measurement:
  /** A scenario's wrk script, and the body file oha sends. */
  final case class Script(lua: Path, body: Option[Path])

  final case class Closed(result: Either[String, WrkResult], readings: Readings)
  final case class Open(rate: Double, result: Either[String, OhaResult], readings: Readings)

  /** One round of one server: its closed-model slice and, with a fixed rate, its open-model slice. */
  final case class Measured(round: Int, closed: Closed, open: Option[Open]):
    def slice: Slice =
      val w = closed.result.toOption
      Slice(
        round = round,
        throughput = w.fold(0.0)(_.throughput),
        cpuMsPer1000 = for r <- w; s <- closed.readings.serverCpuSeconds if r.requests > 0 yield s * 1e6 / r.requests,
        fixedRateCpuMsPer1000 =
          for
            o <- open
            r <- o.result.toOption if r.requests > 0 && r.errors == 0 && r.achievedRate >= 0.97 * o.rate
            s <- o.readings.serverCpuSeconds
          yield s * 1e6 / r.requests
      )

  /** For profiles that place samples on the right line: the JIT's debug information beyond safepoints. */
  val ProfilingJvmOptions: List[String] = List("-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints")

  def errors(w: WrkResult): String =
    s"connect ${w.connect}, read ${w.read}, write ${w.write}, non-2xx ${w.status}, timeout ${w.timeout}"

  /** Runs a load generator and returns what it printed. */
  def exec(command: List[String]): Either[String, String] =
    scala.util.Try {
      val process = ProcessBuilder(command*).redirectErrorStream(true).start()
      val output = String(process.getInputStream.readAllBytes())
      process.waitFor()
      output
    }.toEither.left.map(e =>
      s"${command.find(c => c == "wrk" || c == "h2load" || c.endsWith("oha")).getOrElse("the load generator")} did not run: $e"
    )
