package rapier.testkit

import io.netty.buffer.{ByteBufAllocator, ByteBufAllocatorMetricProvider}

/** What this JVM holds: its heap after a collection, plus what Netty's default allocator has taken. */
object Memory:
  def used(): Long =
    val runtime = Runtime.getRuntime
    System.gc()
    val heap = runtime.totalMemory - runtime.freeMemory
    val netty = ByteBufAllocator.DEFAULT match
      case provider: ByteBufAllocatorMetricProvider =>
        provider.metric.usedDirectMemory + provider.metric.usedHeapMemory
      case _ => 0L
    heap + netty
