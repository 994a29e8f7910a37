package rapier.perf.common

import java.lang.management.ManagementFactory
import scala.jdk.CollectionConverters.*

/**
 * What a server JVM reports about itself: bytes allocated by all its live threads since it started, garbage
 * collections, CPU time, and the time its JIT compilers have spent compiling. Read twice, around a measured window;
 * the difference is the window's.
 */
final case class ProcessStats(
    allocatedBytes: Long,
    gcCount: Long,
    gcTimeMillis: Long,
    cpuNanos: Long,
    heapUsed: Long,
    compileMillis: Long
):
  def toJson: String =
    s"""{"allocatedBytes":$allocatedBytes,"gcCount":$gcCount,"gcTimeMillis":$gcTimeMillis,"cpuNanos":$cpuNanos,""" +
      s""""heapUsed":$heapUsed,"compileMillis":$compileMillis}"""

object ProcessStats:
  private val threads = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
  private val os = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]

  def now(): ProcessStats =
    // JDK 17 has no process-wide allocation counter: the sum over live threads. Event loop threads live as long as
    // the server does, so nothing allocated during a window is lost with a thread.
    val allocated = threads.getThreadAllocatedBytes(threads.getAllThreadIds).filter(_ > 0).sum
    val gcs = ManagementFactory.getGarbageCollectorMXBeans.asScala
    ProcessStats(
      allocated,
      gcs.map(_.getCollectionCount.max(0L)).sum,
      gcs.map(_.getCollectionTime.max(0L)).sum,
      os.getProcessCpuTime,
      ManagementFactory.getMemoryMXBean.getHeapMemoryUsage.getUsed,
      Option(ManagementFactory.getCompilationMXBean).filter(_.isCompilationTimeMonitoringSupported)
        .fold(0L)(_.getTotalCompilationTime)
    )
