package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

/** Latency percentiles of a run, in milliseconds. */
final case class LatencyMs(p50: Double, p75: Double, p90: Double, p99: Double, p999: Double, p9999: Double, max: Double)

object LatencyMs:
  def of(l: Latency): LatencyMs =
    LatencyMs(l.p50 / 1000, l.p75 / 1000, l.p90 / 1000, l.p99 / 1000, l.p999 / 1000, l.p9999 / 1000, l.max / 1000)

  /** The mean of each percentile over several runs. */
  def mean(all: List[LatencyMs]): Option[LatencyMs] =
    if all.isEmpty then None
    else
      def m(f: LatencyMs => Double) = all.map(f).sum / all.size
      Some(LatencyMs(m(_.p50), m(_.p75), m(_.p90), m(_.p99), m(_.p999), m(_.p9999), m(_.max)))

/** How a test ended. */
object Status:
  val Ok = "ok"

  /** Measured, but not to be trusted: errors during the run, or a wrong answer to the probe. */
  val Invalid = "invalid"

  /** The server does not serve the scenario. */
  val NotApplicable = "n/a"

  /** Not measured: the server or wrk did not run. */
  val Failed = "failed"

/** One test of a run: a server, a scenario, a number of users, in one round. */
final case class Row(
    round: Int,
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
    warmupSeconds: Int
):
  def valid: Boolean = status == Status.Ok

/** A figure over the rounds of a run. */
final case class Spread(mean: Double, min: Double, max: Double)

object Spread:
  def of(values: List[Double]): Option[Spread] =
    if values.isEmpty then None else Some(Spread(values.sum / values.size, values.min, values.max))

/** A server, scenario and number of users over every round: the figures reports show. */
final case class Summary(
    server: String,
    implementation: String,
    twin: Option[String],
    scenario: String,
    users: Int,
    status: String,
    validRounds: Int,
    rounds: Int,
    throughput: Option[Spread],
    ratio: Option[Spread],
    cpuRatio: Option[Spread],
    bestRatio: Option[Double],
    latencyMs: Option[LatencyMs],
    cpuMsPer1000: Option[Double],
    allocatedBytesPerRequest: Option[Double],
    peakRssMiB: Option[Double],
    gcCountPerRun: Option[Double],
    loadBound: Boolean
):
  /** Where a baseline and this run meet: the same server, scenario and users. */
  def key: String = s"$server|$scenario|$users"

/** When and how a run was made. */
final case class Meta(
    started: String,
    finished: String,
    command: String,
    machine: MachineFacts,
    durationSeconds: Int,
    warmupSeconds: Int,
    rounds: Int,
    users: List[Int],
    jvmOptions: List[String],
    target: Option[String]
)

/** Everything a run produced: `results.json`, and the input of `--baseline`. */
final case class RunResults(meta: Meta, rows: List[Row], summaries: List[Summary])

object RunResults:
  given codec: JsonValueCodec[RunResults] = JsonCodecMaker.make(CodecMakerConfig.withTransientNone(false))

  def toJson(r: RunResults): Array[Byte] = writeToArray(r, WriterConfig.withIndentionStep(2))

  def fromJson(bytes: Array[Byte]): Either[String, RunResults] =
    try Right(readFromArray[RunResults](bytes))
    catch case e: JsonReaderException => Left(s"not a results.json of this suite: ${e.getMessage}")

  /**
   * Summaries of rows: means over valid rounds, and ratios to each server's vanilla twin, paired round by round so
   * that drift of the machine between rounds cancels out.
   */
  def summarize(rows: List[Row], twins: String => Option[String]): List[Summary] =
    val byTest = rows.groupBy(r => (r.server, r.scenario, r.users))
    val order = rows.map(r => (r.server, r.scenario, r.users)).distinct
    order.map { case key @ (server, scenario, users) =>
      val all = byTest(key)
      val valid = all.filter(_.valid)
      val twin = twins(server)
      val pairs = twin.toList.flatMap { t =>
        valid.flatMap(r =>
          byTest.getOrElse((t, scenario, users), Nil).find(o => o.round == r.round && o.valid).map(r -> _)
        )
      }
      val ratios = pairs.collect { case (r, o) if o.throughput > 0 => r.throughput / o.throughput }
      // The twin's CPU time per request over this server's: the throughput ratio both would reach on a saturated CPU,
      // and steadier on a shared machine, where a server may have been waiting rather than working.
      val cpuRatios = pairs.flatMap((r, o) => for a <- r.cpuMsPer1000; b <- o.cpuMsPer1000 if a > 0 yield b / a)
      // Each server at its best round over the twin at its best: on a shared machine, the runs least disturbed by
      // other work, whichever rounds those were.
      val twinBest = twin.toList.flatMap(t => byTest.getOrElse((t, scenario, users), Nil)).filter(_.valid)
        .map(_.throughput).maxOption.filter(_ > 0)
      val bestRatio = for best <- valid.map(_.throughput).maxOption; twinsBest <- twinBest yield best / twinsBest
      def mean(values: List[Double]) = if values.isEmpty then None else Some(values.sum / values.size)
      val status =
        if valid.nonEmpty then Status.Ok
        else if all.forall(_.status == Status.NotApplicable) then Status.NotApplicable
        else if all.exists(_.status == Status.Invalid) then Status.Invalid
        else Status.Failed
      Summary(
        server = server,
        implementation = all.head.implementation,
        twin = twin,
        scenario = scenario,
        users = users,
        status = status,
        validRounds = valid.size,
        rounds = all.size,
        throughput = Spread.of(valid.map(_.throughput)),
        ratio = Spread.of(ratios),
        cpuRatio = Spread.of(cpuRatios),
        bestRatio = bestRatio,
        latencyMs = LatencyMs.mean(valid.flatMap(_.latencyMs)),
        cpuMsPer1000 = mean(valid.flatMap(_.cpuMsPer1000)),
        allocatedBytesPerRequest = mean(valid.flatMap(_.allocatedBytesPerRequest)),
        peakRssMiB = mean(valid.flatMap(_.peakRssMiB)),
        gcCountPerRun = mean(valid.flatMap(_.gcCount).map(_.toDouble)),
        loadBound = valid.exists(_.loadBound)
      )
    }
