package rapier.perf

import rapier.perf.common.ProcessStats

/** A server of the group, running where the load generators can reach it. */
final case class Member(spec: ServerSpec, replica: Int, host: String, port: Int, server: Option[ServerProcess]):
  def label: String = s"${spec.name}${if replica == 2 then " (A/A)" else ""}"
  def url(scenario: Scenario): String = s"${scenario.scheme}://$host:$port${scenario.path}"

/**
 * CPU times and the server's own statistics around a slice of load. The server's CPU time is the scheduler's count,
 * in nanoseconds: the process's count in 10 ms ticks would be 2% of a one-second slice at half load.
 */
final class Window(server: Option[ServerProcess], loadCpus: Option[List[Int]]):
  private val cpu = CpuTimes.now()
  private val stats = server.flatMap(_.stats())
  private val serverCpu = server.flatMap(_.cpuNanos)

  def close(): Readings =
    val serverCpuAfter = server.flatMap(_.cpuNanos)
    Readings(
      loadUtilization = loadCpus.flatMap(c => Option(CpuTimes.now().utilizationSince(cpu, c)).filterNot(_.isNaN)),
      serverCpuSeconds = for a <- serverCpuAfter; b <- serverCpu yield (a - b) / 1e9,
      stats = for a <- server.flatMap(_.stats()); b <- stats yield (b, a)
    )

/** What was read around a slice: the load CPUs' utilization, the server's CPU time and its own statistics. */
final case class Readings(
    loadUtilization: Option[Double],
    serverCpuSeconds: Option[Double],
    stats: Option[(ProcessStats, ProcessStats)]
)

/**
 * A server's readings over its slices, added up: its CPU time and how busy its CPUs were, how busy the load's were
 * (the mean over the slices), and its own statistics' growth.
 */
final case class Totals(
    serverCpuSeconds: Option[Double],
    serverUtilization: Option[Double],
    loadUtilization: Option[Double],
    stats: Option[List[(ProcessStats, ProcessStats)]]
):
  /** What a statistic grew by over the slices. */
  def total(f: ProcessStats => Long): Option[Long] = stats.map(_.map((b, a) => f(a) - f(b)).sum)

  /** The load's CPUs saturated while the server's were not: the load, not the server, set the pace. */
  def loadBound: Boolean = loadUtilization.exists(_ >= 0.9) && serverUtilization.exists(_ < 0.9)

object Totals:
  /** Of the readings of slices that lasted `seconds` in all, on a server of `serverCpuCount` CPUs. */
  def of(readings: List[Readings], seconds: Double, serverCpuCount: Int): Totals =
    def sum(values: List[Option[Double]]) =
      Option.when(values.nonEmpty && values.forall(_.isDefined))(values.flatten.sum)
    val serverCpu = sum(readings.map(_.serverCpuSeconds))
    Totals(
      serverCpu,
      serverCpu.filter(_ => seconds > 0).map(_ / seconds / math.max(1, serverCpuCount)),
      sum(readings.map(_.loadUtilization)).map(_ / math.max(1, readings.size)),
      Option.when(readings.nonEmpty && readings.forall(_.stats.isDefined))(readings.flatMap(_.stats))
    )
