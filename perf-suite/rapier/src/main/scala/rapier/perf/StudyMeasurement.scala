package rapier.perf

import java.net.URI
import java.util.concurrent.CompletableFuture

/**
 * One comparison group on a latency study ([[Study]]): a vanilla twin, the libraries compared with it and the twin's
 * second JVM (the A/A pair), all running at once on the server CPUs, each started with its hiccup meter on.
 *
 *   1. each server in turn is warmed up by the study's own client, `--warmup-requests` messages (events) per user; a
 *      server that none of its users got an answer from is not measured;
 *   2. `--rounds` rounds: in each, every server in turn (the order rotating from round to round) has its hiccup
 *      meter's record restarted, an idle JVM's meter started on the server CPUs, and the client run on the load CPUs:
 *      `-u` users, `--requests` messages (events) each, `--interval-ms` apart; then both meters are read, and CPU
 *      time, allocations and collections around the client's run;
 *   3. with `--profile`, each server in turn: async-profiler's CPU samples over one more run of the client, then its
 *      allocation samples over another ([[ProfileRuns]]);
 *   4. each server's own record of its CPU, heap and resident memory, with its phases marked.
 *
 * The client is a fresh JVM in each run, and leaves each user's first arrivals out of its record (see
 * [[ws.Clients.Settle]]): they come while its own JIT is cold and its users still connecting.
 *
 * @param out
 *   the report's directory, where profiles go
 * @param classpath
 *   Rapier's side, where the clients and the idle meter live
 */
final class StudyMeasurement(
    options: RunOptions,
    out: java.nio.file.Path,
    classpath: String,
    serverCpus: Option[List[Int]],
    loadCpus: Option[List[Int]],
    serverCpuCount: Int
):
  private val java = ProcessHandle.current.info.command.orElse("java")
  private val profiling = ProfileRuns(out)
  private def pin(cpus: Option[List[Int]]) = cpus.toList.flatMap(c => List("taskset", "-c", c.mkString(",")))

  /** One server's round: what its client read, the meters beside it, and the time the client took. */
  private final case class Run(
      round: Int,
      client: Either[String, Reading],
      hiccups: JvmHiccups,
      readings: Readings,
      seconds: Double
  )

  def measure(start: Int, scenario: Scenario, users: Int, members: List[Member]): List[Row] =
    val study = scenario.study.get
    val marks = members.map(_ -> List.newBuilder[(String, Long)]).toMap
    def mark(m: Member, label: String) = marks(m) += label -> System.currentTimeMillis
    // Each server's resident memory once started, before its first user: what its peak owes to its start
    val readyRss = members.map(m => m -> m.server.flatMap(_.rssMiB)).toMap
    val warm = members.map { m =>
      mark(m, "warm-up")
      val began = System.nanoTime()
      val answered =
        if options.studyWarmupRequests == 0 then Right(())
        else
          client(study, m, users, options.studyWarmupRequests).flatMap(r =>
            if r.count > 0 then Right(()) else Left(s"no user was answered: ${r.why}")
          )
      m -> (answered, math.round((System.nanoTime() - began) / 1e9).toInt)
    }.toMap
    val live = members.filter(warm(_)._1.isRight)
    // The idle meter runs until the client's run ends, and at most as long as the client may wait for its users
    val meterSeconds =
      ((options.studyRequests + ws.Clients.Settle) * study.pace(options.studyIntervalMillis, options.studyTickMillis) /
        1000 + 60).toInt
    val runs = scala.collection.mutable.Map[Member, List[Run]]().withDefaultValue(Nil)
    for round <- 0 until options.rounds do
      val order = if live.isEmpty then Nil else live.drop(round % live.size) ++ live.take(round % live.size)
      for m <- order do
        if round == 0 then mark(m, "measured")
        m.server.foreach(_.hiccups()) // its record restarts here
        val idle = IdleMeter(pin(serverCpus) ++ List(
          java,
          "-cp",
          classpath,
          "rapier.perf.common.Hiccups",
          meterSeconds.toString
        ))
        val window = Window(m.server, loadCpus)
        val began = System.nanoTime()
        val read = client(study, m, users, options.studyRequests)
        val seconds = (System.nanoTime() - began) / 1e9
        val readings = window.close()
        val hiccups = JvmHiccups(
          m.server.flatMap(_.hiccups().toOption).flatMap(Reading.parse(_).toOption).flatMap(_.latency),
          idle.stop().flatMap(Reading.parse(_).toOption).flatMap(_.latency),
          read.toOption.flatMap(_.clientHiccups)
        )
        runs(m) = runs(m) :+ Run(round, read, hiccups, readings, seconds)
        if round == options.rounds - 1 then mark(m, "end of measurement")
    val profiles = live.map { m =>
      m -> Option.when(options.profile && m.server.isDefined)(
        profiling.profile(m, start, scenario, users, mark)(() => client(study, m, users, options.studyRequests))
      )
    }.toMap
    members.map { m =>
      warm(m) match
        case (Left(why), _) =>
          Row.unmeasured(start, m.spec, scenario.name, users, m.replica, Status.Invalid, s"in the warm-up: $why")
        case (Right(_), warmSeconds) =>
          val timeline = m.server.flatMap(_.samples()).map(_.timeline(marks(m).result()))
          row(start, m, scenario, users, runs(m), warmSeconds)
            .copy(timeline = timeline, profile = profiles(m), readyRssMiB = readyRss(m))
    }

  /** Runs the study's client on the load CPUs against one server, and reads what it printed. */
  private def client(study: Study, m: Member, users: Int, requests: Int): Either[String, Reading] =
    val command = pin(loadCpus) ++
      List(java) ++ StudyMeasurement.ClientJvm ++
      List(StudyMeasurement.tick(options), "-cp", classpath, study.client) ++
      study.arguments(study.url(m.host, m.port), users, requests, options.studyIntervalMillis)
    Measurement.exec(command).flatMap(out =>
      out.linesIterator.map(_.trim).filter(_.startsWith("{")).toList.lastOption
        .toRight(s"the study's client printed no result: ${out.linesIterator.toList.takeRight(3).mkString(" | ")}")
        .flatMap(Reading.parse)
    )

  /** A server's row: its rounds added up, each kept as a slice for the ratios. */
  private def row(start: Int, m: Member, scenario: Scenario, users: Int, runs: List[Run], warmSeconds: Int): Row =
    val read = runs.collect { case Run(round, Right(r), h, readings, s) => (round, r, h, readings, s) }
    val failed = runs.collect { case Run(round, Left(why), _, _, _) => s"round ${round + 1}: $why" }
    val incomplete = read.collect {
      case (round, r, _, _, _) if r.failures > 0 || !r.finished =>
        val late = if r.finished then "" else " (some users were still waiting at the deadline)"
        s"round ${round + 1}: ${r.failures} of $users users failed$late: ${r.why}"
    }
    val answers = read.map(_._2.count).sum
    val seconds = read.map(_._5).sum
    def perAnswer(x: Double) = Option.when(answers > 0)(x / answers)
    val totals = Totals.of(read.map(_._4), seconds, serverCpuCount)
    import totals.total
    val slices = read.map { (round, r, h, readings, s) =>
      Slice(
        round = round,
        throughput = if s > 0 then r.count / s else 0,
        cpuMsPer1000 = readings.serverCpuSeconds.filter(_ => r.count > 0).map(_ * 1e6 / r.count),
        fixedRateCpuMsPer1000 = None,
        latencyMs = r.latency,
        hiccups = Some(h)
      )
    }
    // The client's CPUs saturated while the server's were not: the latencies are the client's own queues
    val loadBound = loadCpus.isDefined && totals.loadBound
    val clientCollections = read.map(_._2.clientCollections).sum
    val status =
      if failed.nonEmpty then Status.Failed
      else if incomplete.nonEmpty || answers == 0 then Status.Invalid else Status.Ok
    Row(
      start = start,
      server = m.spec.name,
      implementation = m.spec.implementation.toString,
      scenario = scenario.name,
      users = users,
      status = status,
      note = (failed ++ incomplete).headOption.getOrElse(
        if answers == 0 then "no answer was timed"
        else if loadBound then "the study's client, not the server, was the bottleneck: its CPUs were saturated"
        else if clientCollections > 0 then
          s"the study's client collected $clientCollections times while it timed answers: its pauses are in the latencies"
        else ""
      ),
      requests = answers,
      durationSeconds = seconds,
      throughput = if seconds > 0 then answers / seconds else 0,
      latencyMs = LatencyMs.mean(read.flatMap(_._2.latency)),
      errors = read.map(_._2.failures).sum,
      serverCpuUtilization = totals.serverUtilization,
      loadCpuUtilization = totals.loadUtilization,
      loadBound = loadBound,
      cpuMsPer1000 = totals.serverCpuSeconds.flatMap(c => perAnswer(c * 1e6)),
      allocatedBytesPerRequest = total(_.allocatedBytes).flatMap(b => perAnswer(b.toDouble)),
      gcCount = total(_.gcCount),
      gcTimeMs = total(_.gcTimeMillis),
      peakRssMiB = m.server.flatMap(_.peakRssMiB),
      warmupSeconds = warmSeconds,
      replica = m.replica,
      slices = slices,
      hiccups = JvmHiccups.mean(read.map(_._3))
    )

/** An idle JVM's hiccup meter on the server CPUs, measuring from its start until [[stop]]. */
private final class IdleMeter(command: List[String]):
  private val process = scala.util.Try(ProcessBuilder(command*).redirectErrorStream(true).start()).toOption
  private val output = process.map(p => CompletableFuture.supplyAsync(() => String(p.getInputStream.readAllBytes())))

  /** Ends the meter's window (its standard input closes) and reads what it printed: its JSON line, if it ran. */
  def stop(): Option[String] =
    process.foreach(_.getOutputStream.close())
    val printed = output.flatMap(o => scala.util.Try(o.get(30, java.util.concurrent.TimeUnit.SECONDS)).toOption)
    process.foreach(_.destroyForcibly())
    printed.flatMap(_.linesIterator.map(_.trim).find(_.startsWith("{")))

object StudyMeasurement:
  /**
   * The client's JVM: a young generation that a run at the seed's scale (2,500 users × 600 messages, about 1.2 GB of
   * garbage at 1,000 users' 170 MB for 230 messages) fills without a collection, touched before the run starts.
   */
  val ClientJvm: List[String] = List("-Xms3g", "-Xmx3g", "-Xmn2560m", "-XX:+AlwaysPreTouch")

  /** The JVM option that sets the servers' (and the SSE client's) tick. */
  def tick(options: RunOptions): String = s"-D${rapier.perf.common.Ticks.Property}=${options.studyTickMillis}"

  /**
   * Whether a server serves a study: two users, each answered twice (its first arrivals recorded too); None if so,
   * otherwise what went wrong. Run in this JVM, for the checks before a run and the catalogue's tests.
   */
  def probe(study: Study, host: String, port: Int): Option[String] =
    val uri = URI.create(study.url(host, port))
    val json =
      if study == Study.Events then ws.SseClient.run(uri, 2, 2, settle = 0)
      else ws.WsClient.run(uri, 2, 2, 20, settle = 0)
    Reading.parse(json) match
      case Left(why) => Some(why)
      case Right(r) if r.failures == 0 && r.count == 4 => None
      case Right(r) => Some(s"${r.count} of 4 answers, ${r.failures} users failed: ${r.why}")

/**
 * What a study's client or a hiccup meter printed: one flat JSON object, its percentiles in milliseconds keyed as
 * `p50.0`, `p99.99`…, and for a client the count of answers timed, the users that failed and why.
 */
final case class Reading(fields: Map[String, String]):
  private def number(name: String): Option[Double] = fields.get(name).flatMap(_.toDoubleOption)

  def count: Long = number("count").fold(0L)(_.toLong)
  def failures: Long = number("failures").fold(0L)(_.toLong)
  def finished: Boolean = fields.get("finished").forall(_ == "true")
  def why: String = fields.getOrElse("why", "")

  /** The percentiles, when something was recorded. */
  def latency: Option[LatencyMs] = percentiles("")

  /** The collections a client's JVM made while it timed answers (0 when it does not say). */
  def clientCollections: Long = number(s"${ws.Clients.OwnHiccups}collections").fold(0L)(_.toLong)

  /** A client's own JVM's hiccups over its run, when it measured them. */
  def clientHiccups: Option[LatencyMs] = percentiles(ws.Clients.OwnHiccups)

  private def percentiles(prefix: String): Option[LatencyMs] =
    def p(q: Double) = number(s"${prefix}p$q")
    for
      p50 <- p(50); p75 <- p(75); p90 <- p(90); p99 <- p(99); p999 <- p(99.9); p9999 <- p(99.99)
      max <- number(s"${prefix}max") if number(s"${prefix}count").exists(_ > 0)
    yield LatencyMs(p50, p75, p90, p99, p999, p9999, max, p(99.999), p(99.9999))

object Reading:
  private val Field = """"([^"]+)":("(?:[^"\\]|\\.)*"|[^,}]+)""".r

  def parse(json: String): Either[String, Reading] =
    val text = json.trim
    if !text.startsWith("{") || !text.endsWith("}") then Left(s"not a JSON object: ${text.take(200)}")
    else
      Right(Reading(Field.findAllMatchIn(text).map { m =>
        val value = m.group(2).trim
        m.group(1) ->
          (if value.startsWith("\"") then value.drop(1).dropRight(1).replace("\\\"", "\"").replace("\\\\", "\\")
           else value)
      }.toMap))
