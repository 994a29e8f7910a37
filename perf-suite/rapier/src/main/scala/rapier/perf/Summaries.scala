package rapier.perf

/** A figure over the rounds of a run. */
final case class Spread(mean: Double, min: Double, max: Double)

object Spread:
  def of(values: List[Double]): Option[Spread] =
    if values.isEmpty then None else Some(Spread(values.sum / values.size, values.min, values.max))

/**
 * The open-model figures of a server over the rounds: the rate asked for, the rate reached, CPU time per request at
 * that rate and, for a library, its CPU time per request over its twin's (1.04 is 4% more CPU per request) read against
 * the twin's A/A band; for a vanilla server, that band. `serverCpuUtilization`: the share of the server's CPUs kept
 * busy at that rate (1 = all of them).
 */
final case class FixedRateSummary(
    targetRate: Double,
    achievedRate: Spread,
    held: Boolean,
    cpuMsPer1000: Option[Double],
    cpuCost: Option[Compared],
    noise: Option[Band],
    latencyMs: Option[LatencyMs],
    serverCpuUtilization: Option[Double] = None
):
  /**
   * Whether the rate kept the server's CPUs nearly all busy ([[FixedRateSummary.Saturated]] or more): it queues then,
   * and a few percent more CPU per request shows in its latency, or loses the rate, rather than in its CPU time alone.
   */
  def nearSaturation: Boolean = serverCpuUtilization.exists(_ >= FixedRateSummary.Saturated)

object FixedRateSummary:
  /** The share of its CPUs past which a server at the fixed rate is near saturation. */
  val Saturated = 0.9

/**
 * A latency percentile of a study over its rounds: the mean in milliseconds and, for a library, its ratio to its twin's
 * in the same round (above 1: slower) read against the twin's A/A band, and its difference from the twin's in
 * milliseconds; for a vanilla server, that band, and its second JVM's difference from its first.
 */
final case class PercentileSummary(
    name: String,
    meanMs: Double,
    compared: Option[Compared],
    noise: Option[Band],
    difference: Option[Difference] = None
)

object PercentileSummary:
  /** The percentiles a study's summary compares, by name. */
  val compared: List[(String, LatencyMs => Option[Double])] = List(
    "p50" -> (l => Some(l.p50)),
    "p99" -> (l => Some(l.p99)),
    "p99.9" -> (l => Some(l.p999)),
    "p99.99" -> (l => Some(l.p9999)),
    "p99.9999" -> (_.p999999)
  )

/**
 * A server, scenario and number of users over every round: the figures reports show. For a library server, `ratio`
 * and `compared` are its throughput over its twin's, round by round; `cpuCompared` its CPU efficiency (the twin's CPU
 * time per request over its own), both read against the twin's A/A band. For a vanilla server, `noise` is its own A/A
 * band of throughput. A latency study compares `percentiles` instead of throughput (its pace is the client's), CPU
 * time per answer as `cpuCompared`, and keeps the `hiccups` measured beside it. `peakRssCompared` is a library's peak
 * resident memory over its twin's, start by start (a peak is a whole run's: one figure per start of the servers), read
 * against the twin's A/A band of peaks; with one start, the ratio alone.
 */
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
    loadBound: Boolean,
    compared: Option[Compared] = None,
    cpuCompared: Option[Compared] = None,
    noise: Option[Band] = None,
    steadyAfterSeconds: Option[Spread] = None,
    fixedRate: Option[FixedRateSummary] = None,
    ownCpuShare: Option[Double] = None,
    stackCpuShare: Option[Double] = None,
    percentiles: List[PercentileSummary] = Nil,
    hiccups: Option[JvmHiccups] = None,
    readyRssMiB: Option[Double] = None,
    peakRssCompared: Option[Compared] = None
):
  /** Where a baseline and this run meet: the same server, scenario and users. */
  def key: String = s"$server|$scenario|$users"

/** Rapier's throughput over a peer's on the same scenario, each measured in its own group (backends may differ). */
final case class PeerComparison(rapier: String, peer: String, scenario: String, users: Int, ratio: Interval)

object Summaries:
  /**
   * Summaries of rows: means over valid rounds, and ratios to each server's vanilla twin, paired round by round so
   * that drift of the machine between rounds cancels out. A vanilla server's second runs (replica 2) give the A/A
   * ratios of its band and count in no other figure.
   */
  def of(rows: List[Row], twins: String => Option[String]): List[Summary] =
    val firsts = rows.filter(_.replica == 1)
    val byTest = firsts.groupBy(r => (r.server, r.scenario, r.users))
    val seconds = rows.filter(_.replica == 2).groupBy(r => (r.server, r.scenario, r.users))
    val order = firsts.map(r => (r.server, r.scenario, r.users)).distinct

    /** Pairs of valid runs of the same round: (this server's, the other's). */
    def paired(mine: List[Row], others: List[Row]): List[(Row, Row)] =
      mine.filter(_.valid).flatMap(r => others.find(o => o.start == r.start && o.valid).map(r -> _))

    /**
     * The ratios of two servers' figures, slice by slice: the slices of one cycle ran seconds apart. A run without
     * slices (from before they were kept) is one slice of its own figures.
     */
    def ratios(pairs: List[(Row, Row)], f: Slice => Option[Double]): List[Double] =
      figures(pairs, f).collect { case (p, q) if q > 0 => p / q }

    /** The pairs' figures, slice by slice of the same round: (this server's, the other's). */
    def figures(pairs: List[(Row, Row)], f: Slice => Option[Double]): List[(Double, Double)] =
      pairs.flatMap { (a, b) =>
        for
          x <- slicesOf(a)
          y <- slicesOf(b) if y.round == x.round
          p <- f(x)
          q <- f(y)
        yield (p, q)
      }

    /** The ratios of a figure of whole runs (one per start, such as a peak), pair by pair. */
    def runRatios(pairs: List[(Row, Row)], f: Row => Option[Double]): List[Double] =
      pairs.flatMap((a, b) => for p <- f(a); q <- f(b) if q > 0 yield p / q)
    val throughput = (s: Slice) => Option(s.throughput).filter(_ > 0)
    def latency(f: LatencyMs => Option[Double]) = (s: Slice) => s.latencyMs.flatMap(f).filter(_ > 0)
    val cpu = (s: Slice) => s.cpuMsPer1000.filter(_ > 0)
    val fixedCpu = (s: Slice) => s.fixedRateCpuMsPer1000.filter(_ > 0)

    /** The A/A pairs of a vanilla server: its second run of each round over its first. */
    def aa(vanilla: (String, String, Int)): List[(Row, Row)] =
      paired(seconds.getOrElse(vanilla, Nil), byTest.getOrElse(vanilla, Nil))

    order.map { case key @ (server, scenario, users) =>
      val all = byTest(key)
      val valid = all.filter(_.valid)
      val twin = twins(server)
      val twinKey = twin.map(t => (t, scenario, users))
      val twinRows = twinKey.toList.flatMap(byTest.getOrElse(_, Nil))
      val pairs = paired(all, twinRows)
      val aaPairs = aa(twinKey.getOrElse(key))
      // The twin's CPU time per request over this server's: the throughput ratio both would reach on a saturated CPU,
      // and steadier on a shared machine, where a server may have been waiting rather than working.
      val cpuRatios = ratios(pairs, cpu).map(1 / _)
      // Each server at its best round over the twin at its best: on a shared machine, the runs least disturbed by
      // other work, whichever rounds those were.
      val twinBest = twinRows.filter(_.valid).map(_.throughput).maxOption.filter(_ > 0)
      val bestRatio = for best <- valid.map(_.throughput).maxOption; twinsBest <- twinBest yield best / twinsBest
      val status =
        if valid.nonEmpty then Status.Ok
        else if all.forall(_.status == Status.NotApplicable) then Status.NotApplicable
        else if all.exists(_.status == Status.Invalid) then Status.Invalid
        else Status.Failed
      val library = twin.isDefined
      val study = Scenarios.byName(scenario).exists(!_.isLoad)
      val percentiles =
        if !study then Nil
        else
          PercentileSummary.compared.flatMap { (name, f) =>
            mean(valid.flatMap(_.latencyMs).flatMap(f)).map { ms =>
              PercentileSummary(
                name,
                ms,
                Option.when(library)(Compared.of(ratios(pairs, latency(f)), ratios(aaPairs, latency(f)))).flatten,
                Option.when(!library)(Band.of(ratios(aaPairs, latency(f)))).flatten,
                Difference.of(figures(if library then pairs else aaPairs, latency(f)).map((a, b) => a - b))
              )
            }
          }
      val throughputs = Option.when(!study)(ratios(pairs, throughput)).getOrElse(Nil)
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
        ratio = Spread.of(throughputs),
        cpuRatio = Spread.of(cpuRatios),
        bestRatio = bestRatio.filter(_ => !study),
        latencyMs = LatencyMs.mean(valid.flatMap(_.latencyMs)),
        cpuMsPer1000 = mean(valid.flatMap(_.cpuMsPer1000)),
        allocatedBytesPerRequest = mean(valid.flatMap(_.allocatedBytesPerRequest)),
        peakRssMiB = mean(valid.flatMap(_.peakRssMiB)),
        gcCountPerRun = mean(valid.flatMap(_.gcCount).map(_.toDouble)),
        loadBound = valid.exists(_.loadBound),
        compared = Option.when(library)(Compared.of(throughputs, ratios(aaPairs, throughput))).flatten,
        cpuCompared = Option.when(library)(Compared.of(cpuRatios, ratios(aaPairs, cpu).map(1 / _))).flatten,
        noise = Option.when(!library && !study)(Band.of(ratios(aaPairs, throughput))).flatten,
        steadyAfterSeconds = Spread.of(valid.flatMap(_.steadyAfterSeconds)),
        fixedRate = fixedRateSummary(valid, library, ratios(pairs, fixedCpu), ratios(aaPairs, fixedCpu)),
        ownCpuShare = mean(valid.flatMap(_.profile).flatMap(_.ownShare)),
        stackCpuShare = mean(valid.flatMap(_.profile).flatMap(_.stackShare)),
        percentiles = percentiles,
        hiccups = JvmHiccups.mean(valid.flatMap(_.hiccups)),
        readyRssMiB = mean(valid.flatMap(_.readyRssMiB)),
        peakRssCompared = Option.when(library)(
          Compared.of(runRatios(pairs, _.peakRssMiB), runRatios(aaPairs, _.peakRssMiB))
        ).flatten
      )
    }

  private def fixedRateSummary(
      valid: List[Row],
      library: Boolean,
      costRatios: List[Double],
      aaRatios: List[Double]
  ): Option[FixedRateSummary] =
    val runs = valid.flatMap(_.fixedRate)
    Option.when(runs.nonEmpty)(FixedRateSummary(
      targetRate = runs.map(_.targetRate).sum / runs.size,
      achievedRate = Spread.of(runs.map(_.achievedRate)).get,
      held = runs.forall(_.held),
      cpuMsPer1000 = mean(runs.filter(_.held).flatMap(_.cpuMsPer1000)),
      cpuCost = Option.when(library)(Compared.of(costRatios, aaRatios)).flatten,
      noise = Option.when(!library)(Band.of(aaRatios)).flatten,
      latencyMs = LatencyMs.mean(runs.map(_.latencyMs)),
      serverCpuUtilization = mean(runs.flatMap(_.serverCpuUtilization))
    ))

  /**
   * Rapier's servers against their peers (pairs named by the catalogue) on each scenario both ran: a peer runs in its own
   * twin's group, so the two are measured apart and compared as independent samples of their rounds' throughputs.
   */
  def peers(rows: List[Row], pairs: List[(String, String)]): List[PeerComparison] =
    // A study's pace is its client's: no throughput to compare
    val firsts = rows.filter(r => r.replica == 1 && r.valid && Scenarios.byName(r.scenario).forall(_.isLoad))
    def throughputs(server: String, scenario: String, users: Int) =
      firsts.filter(r => r.server == server && r.scenario == scenario && r.users == users).flatMap(slicesOf)
        .map(_.throughput)
    for
      (rapier, peer) <- pairs
      (scenario, users) <- firsts.filter(_.server == rapier).map(r => (r.scenario, r.users)).distinct
      ratio <- Interval.between(throughputs(rapier, scenario, users), throughputs(peer, scenario, users))
    yield PeerComparison(rapier, peer, scenario, users, ratio)

  private def mean(values: List[Double]) = if values.isEmpty then None else Some(values.sum / values.size)

  private def slicesOf(r: Row): List[Slice] =
    if r.slices.nonEmpty then r.slices
    else List(Slice(0, r.throughput, r.cpuMsPer1000, r.fixedRate.filter(_.held).flatMap(_.cpuMsPer1000)))
