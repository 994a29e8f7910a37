package rapier.testkit

import io.netty.buffer.{ByteBufAllocator, PooledByteBufAllocator, UnpooledByteBufAllocator}
import io.netty.util.{ResourceLeakDetector, ResourceLeakDetectorFactory}

import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters.*

/**
 * Makes Netty's leak reports count: every leak the detector finds is recorded, so a suite can fail on it.
 *
 * Install it before the first Netty buffer is created (the test kit does, when a suite is constructed); run tests
 * with `-Dio.netty.leakDetection.level=paranoid` so that every buffer is tracked.
 */
object LeakDetection:
  private val leaks = ConcurrentLinkedQueue[String]()
  @volatile private var installed = false

  /** Installs the recording detector; later calls do nothing. */
  def install(): Unit = synchronized {
    if !installed then
      installed = true
      ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(Factory)
  }

  /**
   * Collects garbage, lets the detector look at what was collected, and returns every leak recorded so far.
   * Rounds of collection repeat until one finds nothing new, since a collected buffer is queued for the detector
   * asynchronously.
   */
  def leaksSoFar(): List[String] =
    var before = -1
    var round = 0
    while round < 10 && (round < 3 || leaks.size != before) do
      before = leaks.size
      System.gc()
      Thread.sleep(50)
      // The detector checks for collected, unreleased buffers whenever it tracks a new one.
      for _ <- 1 to 64 do
        PooledByteBufAllocator.DEFAULT.buffer(16).release()
        UnpooledByteBufAllocator.DEFAULT.buffer(16).release()
        ByteBufAllocator.DEFAULT.directBuffer(16).release()
      round += 1
    leaks.asScala.toList

  /** Forgets the leaks recorded so far (for the detector's own test). */
  def clear(): Unit = leaks.clear()

  private object Factory extends ResourceLeakDetectorFactory:
    override def newResourceLeakDetector[T](resource: Class[T], samplingInterval: Int, maxActive: Long) =
      Recording[T](resource, samplingInterval)

  private final class Recording[T](resource: Class[T], samplingInterval: Int)
      extends ResourceLeakDetector[T](resource, samplingInterval):
    // Report even when Netty's own logger is quiet.
    override protected def needReport(): Boolean = true
    override protected def reportTracedLeak(resourceType: String, records: String): Unit =
      // The build records no retains and releases unless asked: a leak then says how to see them
      val where = if records.contains("#1:") then records
      else
        s"$records\n(where it was retained and released: " +
          "run again with RAPIER_LEAK_RECORDS=8 in the environment)"
      leaks.add(s"LEAK of $resourceType:$where")
    override protected def reportUntracedLeak(resourceType: String): Unit =
      leaks.add(s"LEAK of $resourceType (no records: run with -Dio.netty.leakDetection.level=paranoid)")
