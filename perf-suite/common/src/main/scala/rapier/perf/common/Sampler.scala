package rapier.perf.common

import java.lang.management.ManagementFactory
import java.nio.file.{Files, Path}
import java.util.concurrent.{Executors, TimeUnit}
import scala.util.Try

/**
 * The server JVM's own record of itself every [[IntervalMillis]] from its start: wall-clock time, process CPU time,
 * heap in use and resident memory. Kept in arrays allocated once (an hour of samples), so sampling costs the server
 * a few microseconds four times a second and nothing on its request path.
 */
final class Sampler:
  private val capacity = (3600 * 1000 / Sampler.IntervalMillis).toInt
  private val epochMillis = new Array[Long](capacity)
  private val cpuNanos = new Array[Long](capacity)
  private val heapBytes = new Array[Long](capacity)
  private val rssBytes = new Array[Long](capacity)
  @volatile private var count = 0

  private val os = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]
  private val memory = ManagementFactory.getMemoryMXBean
  private val statm = Path.of("/proc/self/statm")
  private val pageSize = 4096L

  private val timer = Executors.newSingleThreadScheduledExecutor { r =>
    val t = Thread(r, "perf-sampler")
    t.setDaemon(true)
    t
  }
  timer.scheduleAtFixedRate(() => sample(), 0, Sampler.IntervalMillis, TimeUnit.MILLISECONDS)

  private def sample(): Unit =
    val i = count
    if i < capacity then
      epochMillis(i) = System.currentTimeMillis
      cpuNanos(i) = os.getProcessCpuTime
      heapBytes(i) = memory.getHeapMemoryUsage.getUsed
      // The second field of statm: resident pages.
      rssBytes(i) = Try(Files.readString(statm).split(' ')(1).toLong * pageSize).getOrElse(-1L)
      count = i + 1

  /** Every sample so far, as JSON: four arrays of the same length. */
  def toJson: String =
    val n = count
    def array(a: Array[Long]) = a.iterator.take(n).mkString("[", ",", "]")
    s"""{"intervalMillis":${Sampler.IntervalMillis},"epochMillis":${array(epochMillis)},"cpuNanos":${array(
        cpuNanos
      )},""" +
      s""""heapBytes":${array(heapBytes)},"rssBytes":${array(rssBytes)}}"""

  def stop(): Unit = timer.shutdownNow()

object Sampler:
  val IntervalMillis = 250L
