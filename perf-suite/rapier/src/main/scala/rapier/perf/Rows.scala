package rapier.perf

/**
 * Latency percentiles of a run, in milliseconds; a latency study's go on to p99.9999 (`p99999`, `p999999`), which the
 * load generators don't give.
 */
final case class LatencyMs(
    p50: Double,
    p75: Double,
    p90: Double,
    p99: Double,
    p999: Double,
    p9999: Double,
    max: Double,
    p99999: Option[Double] = None,
    p999999: Option[Double] = None
)

object LatencyMs:
  def of(l: Latency): LatencyMs =
    LatencyMs(l.p50 / 1000, l.p75 / 1000, l.p90 / 1000, l.p99 / 1000, l.p999 / 1000, l.p9999 / 1000, l.max / 1000)

  /** The mean of each percentile over several runs. */
  def mean(all: List[LatencyMs]): Option[LatencyMs] =
    if all.isEmpty then None
    else
      def m(f: LatencyMs => Double) = all.map(f).sum / all.size
      def deep(f: LatencyMs => Option[Double]) = Option.when(all.forall(f(_).isDefined))(m(f(_).get))
      Some(LatencyMs(
        m(_.p50),
        m(_.p75),
        m(_.p90),
        m(_.p99),
        m(_.p999),
        m(_.p9999),
        m(_.max),
        deep(_.p99999),
        deep(_.p999999)
      ))

/**
 * The hiccups measured beside a latency study's client (see [[rapier.perf.common.Hiccups]]): the server JVM's own
 * meter, an idle JVM's on the server CPUs (the OS's share), and the client JVM's own (the part of the latency that is
 * the client's); percentiles in milliseconds.
 */
final case class JvmHiccups(server: Option[LatencyMs], idle: Option[LatencyMs], client: Option[LatencyMs] = None)

object JvmHiccups:
  def mean(all: List[JvmHiccups]): Option[JvmHiccups] =
    Option.when(all.nonEmpty)(
      JvmHiccups(
        LatencyMs.mean(all.flatMap(_.server)),
        LatencyMs.mean(all.flatMap(_.idle)),
        LatencyMs.mean(all.flatMap(_.client))
      )
    )

/** How a test ended. */
object Status:
  val Ok = "ok"

  /** Measured, but not to be trusted: errors during the run, or a wrong answer to the probe. */
  val Invalid = "invalid"

  /** The server does not serve the scenario. */
  val NotApplicable = "n/a"

  /** Not measured: the server or wrk did not run. */
  val Failed = "failed"

/**
 * The open-model window of a test: requests sent at `targetRate` per second whatever the answers do, latency measured
 * from each request's intended send time, and what the server's CPU spent per request at that rate.
 */
final case class FixedRateRun(
    targetRate: Double,
    achievedRate: Double,
    requests: Long,
    errors: Long,
    latencyMs: LatencyMs,
    cpuMsPer1000: Option[Double],
    serverCpuUtilization: Option[Double],
    loadCpuUtilization: Option[Double],
    note: String
):
  /** The rate was held (within 3%) without errors: the window measured the server at that rate. */
  def held: Boolean = errors == 0 && requests > 0 && achievedRate >= 0.97 * targetRate

/** A point of a test's life, in seconds from its timeline's first sample: where warm-up and measurement begin and end. */
final case class Mark(label: String, seconds: Double)

/**
 * The server's CPU (100 = one CPU busy), heap in use and resident memory, sampled every `intervalMs` by the server
 * itself from its start to its end, with the test's phases marked on the same clock.
 */
final case class Timeline(
    intervalMs: Int,
    cpuPercent: List[Double],
    heapMiB: List[Double],
    rssMiB: List[Double],
    marks: List[Mark]
)

/**
 * What async-profiler recorded after a test's rounds (`--profile`): flame graphs of CPU samples and of allocations
 * under the closed model, and of CPU samples at the group's fixed rate when it had one (paths relative to the report),
 * and the share of CPU samples in the library's own frames (a sample belongs to the innermost frame that is neither
 * the JDK's nor Scala's library: code the library runs, and what it calls from them) and on its stacks at all.
 */
final case class ProfileRun(
    cpuFlamegraph: Option[String],
    allocFlamegraph: Option[String],
    cpuSamples: Long,
    library: Option[String],
    ownShare: Option[Double],
    stackShare: Option[Double],
    note: String,
    fixedRateCpuFlamegraph: Option[String] = None,
    fixedRateCpuSamples: Option[Long] = None
)

/**
 * One round of a test: the server's closed-model throughput and CPU time per request in its slice, and its CPU time
 * per request in its fixed-rate slice (when the rate was held); in a latency study, answers per second, CPU time per
 * answer, the round's latency percentiles and the hiccups beside them. Ratios are taken between servers' slices of the
 * same round, which ran seconds apart.
 */
final case class Slice(
    round: Int,
    throughput: Double,
    cpuMsPer1000: Option[Double],
    fixedRateCpuMsPer1000: Option[Double],
    latencyMs: Option[LatencyMs] = None,
    hiccups: Option[JvmHiccups] = None
)

/**
 * One test of a run: a server, a scenario and a number of users, on the `start`-th start of its group's servers (each
 * start on fresh JVMs); its figures add up its rounds' slices, which it keeps. `replica` 2 marks a vanilla server's
 * second JVM in the group: the other half of the A/A pair that measures the noise floor. In a latency study, `requests`
 * counts the answers timed, `errors` the users that failed, and `hiccups` is the meters' mean over the rounds.
 */
final case class Row(
    start: Int = 1,
    server: String,
    implementation: String,
    scenario: String,
    users: Int,
    status: String,
    note: String,
    requests: Long,
    durationSeconds: Double,
    throughput: Double,
    latencyMs: Option[LatencyMs],
    errors: Long,
    serverCpuUtilization: Option[Double],
    loadCpuUtilization: Option[Double],
    loadBound: Boolean,
    cpuMsPer1000: Option[Double],
    allocatedBytesPerRequest: Option[Double],
    gcCount: Option[Long],
    gcTimeMs: Option[Long],
    peakRssMiB: Option[Double],
    warmupSeconds: Int,
    replica: Int = 1,
    steadyAfterSeconds: Option[Double] = None,
    warmupThroughput: List[Double] = Nil,
    warmupCompileMs: List[Double] = Nil,
    fixedRate: Option[FixedRateRun] = None,
    timeline: Option[Timeline] = None,
    profile: Option[ProfileRun] = None,
    slices: List[Slice] = Nil,
    hiccups: Option[JvmHiccups] = None,
    readyRssMiB: Option[Double] = None
):
  def valid: Boolean = status == Status.Ok

object Row:
  /** A test that was not measured, with the reason. */
  def unmeasured(
      start: Int,
      server: ServerSpec,
      scenario: String,
      users: Int,
      replica: Int,
      status: String,
      note: String
  ): Row =
    Row(
      start,
      server.name,
      server.implementation.toString,
      scenario,
      users,
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
      0,
      replica
    )
