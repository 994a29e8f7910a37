package rapier.testkit

import java.lang.management.ManagementFactory
import javax.management.ObjectName

/** What the heap holds, for the tests of what a server lets go once a request is answered. */
object LiveInstances:
  /** Live instances of the class named `className`, after a full collection (the JVM's class histogram). */
  def apply(className: String): Long =
    val histogram = ManagementFactory.getPlatformMBeanServer.invoke(
      ObjectName("com.sun.management:type=DiagnosticCommand"),
      "gcClassHistogram",
      Array[AnyRef](Array.empty[String]),
      Array(classOf[Array[String]].getName)
    )
    histogram.toString.linesIterator
      .map(_.trim.split("\\s+"))
      .collectFirst { case Array(_, instances, _, `className`, _*) => instances.toLong }
      .getOrElse(0L)
