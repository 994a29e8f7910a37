package rapier.perf.common

import org.HdrHistogram.{Histogram, Recorder}

import java.util.concurrent.TimeUnit

/**
 * A hiccup meter: a thread that sleeps 1 ms again and again and records how much longer each sleep took than asked,
 * in microseconds. What it records is what the JVM (safepoints, collections, the JIT) and the OS (scheduling, other
 * processes on the CPU) add to any latency measured beside it, whatever the application does: a server's WebSocket
 * latency is read next to its own JVM's hiccups and to an idle JVM's on the same CPU.
 */
final class Hiccups:
  private val recorder = Recorder(3)
  @volatile private var running = true
  private val thread = Thread(() => measure(), "hiccup-meter")
  thread.setDaemon(true)
  thread.start()

  private def measure(): Unit =
    while running do
      val start = System.nanoTime()
      TimeUnit.NANOSECONDS.sleep(Hiccups.SleepNanos)
      val excess = System.nanoTime() - start - Hiccups.SleepNanos
      recorder.recordValue(math.max(0L, excess / 1000))

  /** What was recorded since the last call (or the start), as JSON percentiles in milliseconds. */
  def sinceLast(): String = Hiccups.json(recorder.getIntervalHistogram())

  /** The same as fields of a larger flat JSON object, each name prefixed (`client.p99.99`). */
  def fieldsSinceLast(prefix: String): String = Hiccups.fields(recorder.getIntervalHistogram(), prefix)

  def stop(): Unit = running = false

object Hiccups:
  private val SleepNanos = 1_000_000L

  /** The percentiles the suite reports, to p99.9999, in milliseconds, from a histogram of microseconds. */
  val Percentiles: List[Double] = List(50, 75, 90, 99, 99.9, 99.99, 99.999, 99.9999)

  def json(h: Histogram): String = s"{${fields(h, "")}}"

  /** The fields of [[json]] without its braces, each name prefixed: `"count":…,"p50.0":…,…,"max":…`. */
  def fields(h: Histogram, prefix: String): String =
    def ms(us: Long) = f"${us / 1000.0}%.3f"
    val ps = Percentiles.map(p => s""""${prefix}p$p":${ms(h.getValueAtPercentile(p))}""")
    s""""${prefix}count":${h.getTotalCount},${ps.mkString(",")},"${prefix}max":${ms(h.getMaxValue)}"""

  /**
   * An idle JVM's meter, for the OS's share: `java -cp ... rapier.perf.common.Hiccups SECONDS` measures until its
   * standard input ends (the suite closes it when the window it measures beside is over), for SECONDS at most, and
   * prints its JSON.
   */
  def main(args: Array[String]): Unit =
    val seconds = args.headOption.flatMap(_.toIntOption).getOrElse(10)
    val meter = Hiccups()
    val ended = java.util.concurrent.CountDownLatch(1)
    val reader = Thread(
      () =>
        while System.in.read() >= 0 do (); ended.countDown()
      ,
      "stdin"
    )
    reader.setDaemon(true)
    reader.start()
    ended.await(seconds, TimeUnit.SECONDS)
    meter.stop()
    println(meter.sinceLast())
