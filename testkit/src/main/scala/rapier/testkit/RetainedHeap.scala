package rapier.testkit

import java.lang.management.ManagementFactory

/**
 * The heap this JVM (the server under test, in the kit) still uses once what can be collected has been: what the server
 * retains, to compare before and after a client's doing.
 */
object RetainedHeap:
  def now(): Long =
    val memory = ManagementFactory.getMemoryMXBean
    for _ <- 1 to 3 do
      System.gc()
      Thread.sleep(50)
    memory.getHeapMemoryUsage.getUsed
