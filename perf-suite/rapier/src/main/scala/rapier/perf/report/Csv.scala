package rapier.perf.report

import rapier.perf.Row

/** `results.csv`: one row per server × scenario × users × round (and A/A replica). */
object Csv:
  val header: List[String] = List(
    "start",
    "server",
    "implementation",
    "scenario",
    "users",
    "status",
    "requests",
    "duration_s",
    "throughput_rps",
    "p50_ms",
    "p75_ms",
    "p90_ms",
    "p99_ms",
    "p99_9_ms",
    "p99_99_ms",
    "max_ms",
    "errors",
    "server_cpu_utilization",
    "load_cpu_utilization",
    "load_bound",
    "cpu_ms_per_1000",
    "allocated_bytes_per_request",
    "gc_count",
    "gc_time_ms",
    "peak_rss_mib",
    "ready_rss_mib",
    "warmup_s",
    "replica",
    "steady_after_s",
    "fixed_rate_target_rps",
    "fixed_rate_achieved_rps",
    "fixed_rate_cpu_ms_per_1000",
    "fixed_rate_p99_ms",
    "fixed_rate_p99_99_ms",
    "own_cpu_share",
    "p99_9999_ms",
    "server_hiccups_p99_99_ms",
    "idle_hiccups_p99_99_ms",
    "client_hiccups_p99_99_ms",
    "note"
  )

  def render(rows: List[Row]): String = (header :: rows.map(line)).map(_.map(field).mkString(",")).mkString(
    "",
    "\n",
    "\n"
  )

  private def line(r: Row): List[String] =
    def d(o: Option[Double]) = o.fold("")(v => f"$v%.4f")
    val l = r.latencyMs
    List(
      r.start.toString,
      r.server,
      r.implementation,
      r.scenario,
      r.users.toString,
      r.status,
      r.requests.toString,
      f"${r.durationSeconds}%.3f",
      f"${r.throughput}%.1f",
      d(l.map(_.p50)),
      d(l.map(_.p75)),
      d(l.map(_.p90)),
      d(l.map(_.p99)),
      d(l.map(_.p999)),
      d(l.map(_.p9999)),
      d(l.map(_.max)),
      r.errors.toString,
      d(r.serverCpuUtilization),
      d(r.loadCpuUtilization),
      r.loadBound.toString,
      d(r.cpuMsPer1000),
      d(r.allocatedBytesPerRequest),
      r.gcCount.fold("")(_.toString),
      r.gcTimeMs.fold("")(_.toString),
      d(r.peakRssMiB),
      d(r.readyRssMiB),
      r.warmupSeconds.toString,
      r.replica.toString,
      d(r.steadyAfterSeconds),
      d(r.fixedRate.map(_.targetRate)),
      d(r.fixedRate.map(_.achievedRate)),
      d(r.fixedRate.flatMap(_.cpuMsPer1000)),
      d(r.fixedRate.map(_.latencyMs.p99)),
      d(r.fixedRate.map(_.latencyMs.p9999)),
      d(r.profile.flatMap(_.ownShare)),
      d(l.flatMap(_.p999999)),
      d(r.hiccups.flatMap(_.server).map(_.p9999)),
      d(r.hiccups.flatMap(_.idle).map(_.p9999)),
      d(r.hiccups.flatMap(_.client).map(_.p9999)),
      r.note
    )

  /** RFC 4180 quoting, only where needed. */
  private def field(s: String): String =
    if s.exists(c => c == ',' || c == '"' || c == '\n' || c == '\r') then "\"" + s.replace("\"", "\"\"") + "\"" else s
