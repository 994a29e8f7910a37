package rapier.perf

import java.nio.file.{Files, Path, Paths}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/** Facts about the machine a run happened on; they go into every report. */
final case class MachineFacts(
    cpus: Int,
    cpuModel: String,
    memoryGiB: Double,
    os: String,
    kernel: String,
    jdk: String,
    wrk: String,
    serverCpus: String,
    loadCpus: String,
    pinned: Boolean
)

object Machine:
  private def read(path: String): Option[String] = Try(Files.readString(Paths.get(path))).toOption

  /** The CPUs the kernel has online, e.g. `0-1` as List(0, 1). */
  def onlineCpus(): List[Int] =
    read("/sys/devices/system/cpu/online").map(s => parseCpuList(s.trim)).filter(_.nonEmpty)
      .getOrElse((0 until Runtime.getRuntime.availableProcessors).toList)

  /** `0-2,5` as List(0, 1, 2, 5). */
  def parseCpuList(s: String): List[Int] =
    s.split(',').toList.filter(_.nonEmpty).flatMap { part =>
      part.split('-') match
        case Array(a, b) => (a.toInt to b.toInt).toList
        case Array(a) => List(a.toInt)
        case _ => Nil
    }

  /** Whether processes can be pinned here (Linux with `taskset`). */
  lazy val canPin: Boolean =
    Files.isDirectory(Paths.get("/proc")) &&
      Try(ProcessBuilder("taskset", "-V").start().waitFor() == 0).getOrElse(false)

  /**
   * The CPUs a run's servers and load generators use: those given, or the default split; pinned when taskset is there
   * and the two sets are disjoint (without it, a run still works, and the report says so).
   */
  def plan(options: RunOptions): CpuPlan =
    val (defaultServer, defaultLoad) = defaultSplit(onlineCpus())
    val server = options.serverCpus.map(parseCpuList).getOrElse(defaultServer)
    val load = options.loadCpus.map(parseCpuList).getOrElse(defaultLoad)
    CpuPlan(server, load, canPin && server.nonEmpty && load.nonEmpty && server.intersect(load).isEmpty)

  /** The default split: the first half of the CPUs for the server, the rest for the load generator. */
  def defaultSplit(cpus: List[Int]): (List[Int], List[Int]) =
    if cpus.size < 2 then (cpus, cpus) else cpus.splitAt(cpus.size / 2)

  def detect(serverCpus: List[Int], loadCpus: List[Int], pinned: Boolean): MachineFacts =
    val model =
      read("/proc/cpuinfo").flatMap(_.linesIterator.find(_.startsWith("model name")).map(_.split(":", 2)(1).trim))
    val memKb = read("/proc/meminfo").flatMap(_.linesIterator.find(_.startsWith("MemTotal")))
      .flatMap(_.split("\\s+").lift(1)).flatMap(_.toLongOption)
    MachineFacts(
      cpus = onlineCpus().size,
      cpuModel = model.getOrElse(System.getProperty("os.arch")),
      memoryGiB = memKb.map(_ / 1024.0 / 1024.0).getOrElse(Runtime.getRuntime.maxMemory / 1e9),
      os = s"${System.getProperty("os.name")} ${System.getProperty("os.arch")}",
      kernel = read("/proc/sys/kernel/osrelease").map(_.trim).getOrElse(System.getProperty("os.version")),
      jdk = s"${System.getProperty("java.vm.name")} ${System.getProperty("java.runtime.version")}",
      wrk = Wrk.version.getOrElse("not installed"),
      serverCpus = serverCpus.mkString(","),
      loadCpus = loadCpus.mkString(","),
      pinned = pinned
    )

/** Busy and total time of each CPU, from `/proc/stat`: how loaded a set of CPUs was over a window. */
final case class CpuTimes(busy: Map[Int, Long], total: Map[Int, Long]):
  /** The fraction of time `cpus` were busy between `earlier` and this reading. */
  def utilizationSince(earlier: CpuTimes, cpus: List[Int]): Double =
    val busyDelta = cpus.map(c => busy.getOrElse(c, 0L) - earlier.busy.getOrElse(c, 0L)).sum
    val totalDelta = cpus.map(c => total.getOrElse(c, 0L) - earlier.total.getOrElse(c, 0L)).sum
    if totalDelta <= 0 then Double.NaN else busyDelta.toDouble / totalDelta

object CpuTimes:
  def now(): CpuTimes = parse(Try(Files.readString(Paths.get("/proc/stat"))).getOrElse(""))

  /** Lines `cpuN user nice system idle iowait irq softirq steal ...`; idle and iowait count as not busy. */
  def parse(stat: String): CpuTimes =
    val rows =
      stat.linesIterator.filter(l => l.startsWith("cpu") && l.length > 3 && l.charAt(3).isDigit).flatMap { line =>
        val f = line.split("\\s+")
        val values = f.drop(1).take(8).flatMap(_.toLongOption)
        f(0).drop(3).toIntOption.filter(_ => values.length >= 5).map(cpu =>
          (cpu, values.sum - values(3) - values(4), values.sum)
        )
      }.toList
    CpuTimes(rows.map(r => r._1 -> r._2).toMap, rows.map(r => r._1 -> r._3).toMap)

/** A process's CPU time and peak memory, from `/proc/<pid>`. */
object ProcFs:
  /**
   * The CPU time of a process's threads, in nanoseconds: the sum of each thread's time on a CPU from
   * `/proc/<pid>/task/<tid>/schedstat`, which the scheduler counts in nanoseconds (`/proc/<pid>/stat` counts in
   * 10 ms ticks). Threads that have ended are not counted; a server's threads live as long as it does.
   */
  def cpuNanos(pid: Long): Option[Long] =
    Try {
      val tasks = Files.list(Path.of(s"/proc/$pid/task"))
      try
        tasks.iterator.asScala.flatMap { task =>
          Try(Files.readString(task.resolve("schedstat"))).toOption.flatMap(_.split(' ').headOption)
            .flatMap(_.trim.toLongOption)
        }.sum
      finally tasks.close()
    }.toOption.filter(_ > 0)

  /** The most resident memory a process has had (VmHWM), in MiB. */
  def peakRssMiB(pid: Long): Option[Double] = statusMiB(pid, "VmHWM:")

  /** The resident memory a process has now (VmRSS), in MiB. */
  def rssMiB(pid: Long): Option[Double] = statusMiB(pid, "VmRSS:")

  private def statusMiB(pid: Long, field: String): Option[Double] =
    Try(Files.readString(Path.of(s"/proc/$pid/status"))).toOption
      .flatMap(_.linesIterator.find(_.startsWith(field)))
      .flatMap(_.split("\\s+").lift(1)).flatMap(_.toLongOption).map(_ / 1024.0)

/** The CPUs of a run's servers and of its load generators, and whether each side is pinned to its own. */
final case class CpuPlan(server: List[Int], load: List[Int], pinned: Boolean)
