package rapier.perf.ws

import io.netty.bootstrap.Bootstrap
import io.netty.channel.epoll.{Epoll, EpollIoHandler, EpollSocketChannel}
import io.netty.channel.nio.NioIoHandler
import io.netty.channel.socket.nio.NioSocketChannel
import io.netty.channel.{Channel, ChannelHandlerContext, ChannelInitializer, ChannelOption, MultiThreadIoEventLoopGroup}
import org.HdrHistogram.Recorder
import rapier.perf.common.Hiccups

import java.net.URI
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.{CountDownLatch, TimeUnit}

/**
 * What the studies' clients share: many users on one Netty event loop, connected in batches, each timing what it
 * receives from the `System.nanoTime` stamp it carries; one JSON line at the end, the latencies' percentiles to
 * p99.9999 in milliseconds, how many users failed and why.
 *
 * The client measures itself out of the way, each rule measured against a bare Netty server at 1,000 users, where a
 * client written in Go (no JIT, no stop-the-world collection) had a p99.99 of 12.4-12.7 ms:
 *  - each user's first [[Settle]] arrivals are not recorded: they come while the client's JVM still compiles its
 *    paths and its users still connect (10 arrivals left out: p99.99 14-19 ms, every excess within the recording's
 *    first second; 30: 14.5-14.7 ms);
 *  - a user that has all its answers stays connected, quiet, until every user has, and connections are closed once
 *    the measurement is over. Closing them as users finished put the teardown (close frames, the server's closes,
 *    code not compiled yet) on the loop that still timed the last users' answers: p99.99 was 55-79 ms, all of it in
 *    the run's last 300 ms;
 *  - its JVM is sized so that it never collects during a run ([[StudyMeasurement]] starts it): one young collection
 *    of 18 ms was otherwise in most runs.
 * A hiccup meter in the client's JVM runs while latencies are recorded, so that what of them is the client's own (its
 * JIT, its share of its CPU) shows beside the server's: its fields are prefixed `client.` in the JSON line, with the
 * collections the client's JVM made meanwhile.
 */
private[perf] object Clients:
  /** The arrivals each user leaves out before recording: three seconds' worth at the studies' 100 ms pace. */
  val Settle = 30

  /** The prefix of the client JVM's hiccup fields in its JSON line. */
  val OwnHiccups = "client."

  /** Why users failed: a count per reason, the reasons as users gave them. */
  final class Failures:
    private val reasons = java.util.concurrent.ConcurrentHashMap[String, AtomicLong]()
    def add(why: String): Unit = reasons.computeIfAbsent(why, _ => AtomicLong()).incrementAndGet()
    def count: Long =
      var n = 0L
      reasons.forEach((_, c) => n += c.get)
      n

    /** "3 × closed by the server (1011 ...); 1 × ..." in the order of their counts, or "". */
    def describe: String =
      val all = List.newBuilder[(String, Long)]
      reasons.forEach((why, c) => all += why -> c.get)
      all.result().sortBy(-_._2).map((why, n) => s"$n × $why").mkString("; ")

  /** One user's record: its latencies, and its end, counted once, as finished or failed. */
  final class Latencies(recorder: Recorder, done: CountDownLatch, failures: Failures, settle: Int, meter: Meter):
    private var ended = false
    private var arrived = 0

    /** The latency of what arrives now carrying `stamp`, once the user is past its first `settle` arrivals. */
    def record(stamp: Long): Unit =
      arrived += 1
      if arrived > settle then
        if arrived == settle + 1 then meter.start()
        recorder.recordValue(math.max(0L, (System.nanoTime() - stamp) / 1000))

    /** The user is done; true the first time. */
    def finish(): Boolean =
      val first = !ended
      if first then
        ended = true
        done.countDown()
      first

    /** The user failed, for the reason given, unless it had finished; its connection closes. */
    def fail(ctx: ChannelHandlerContext, why: => String): Unit =
      if !ended then
        ended = true
        failures.add(why)
        done.countDown()
      ctx.close()

  /**
   * The client JVM's hiccup meter and collection count, from the first recorded arrival to [[read]]. Started from the
   * client's one event loop, read from the thread that waits for the users.
   */
  final class Meter:
    @volatile private var started: (Hiccups, Long) | Null = null
    private def collections =
      java.lang.management.ManagementFactory.getGarbageCollectorMXBeans.stream.mapToLong(_.getCollectionCount).sum

    def start(): Unit = if started == null then started = (Hiccups(), collections)

    /** Its JSON fields, prefixed [[OwnHiccups]]; a meter never started (nothing recorded) reads as an empty record. */
    def read(): String = started match
      case (meter, before) =>
        meter.stop()
        s""""${OwnHiccups}collections":${collections - before},${meter.fieldsSinceLast(OwnHiccups)}"""
      case null => s""""${OwnHiccups}collections":0,${Hiccups.fields(org.HdrHistogram.Histogram(3), OwnHiccups)}"""

  /**
   * Runs `users` users, each a channel `init` sets up, each leaving out its first `settle` arrivals; waits for them at
   * most `deadlineMillis`, then ends every connection still open with `leave`.
   */
  def run(uri: URI, users: Int, deadlineMillis: Long, settle: Int, leave: Channel => Unit)(
      init: (Channel, Latencies) => Unit
  ): String =
    val recorder = Recorder(3)
    val done = CountDownLatch(users)
    val failures = Failures()
    val channels = java.util.concurrent.ConcurrentLinkedQueue[Channel]()
    val meter = Meter()
    // epoll where there is one: the client shares its CPU with nothing it can spare, and NIO's selector costs more
    val epoll = Epoll.isAvailable
    val group = MultiThreadIoEventLoopGroup(1, if epoll then EpollIoHandler.newFactory() else NioIoHandler.newFactory())
    try
      val bootstrap = Bootstrap()
        .group(group)
        .channel(if epoll then classOf[EpollSocketChannel] else classOf[NioSocketChannel])
        .option(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
        .handler(new ChannelInitializer[Channel]:
          override def initChannel(ch: Channel): Unit =
            channels.add(ch)
            init(ch, Latencies(recorder, done, failures, settle, meter)))
      // Connect in batches, so that the listen backlog takes them all
      for batch <- (0 until users).grouped(100) do
        batch.foreach { _ =>
          bootstrap.connect(uri.getHost, uri.getPort).addListener { (f: io.netty.channel.ChannelFuture) =>
            if !f.isSuccess then
              failures.add(s"no connection (${f.cause})")
              done.countDown()
          }
        }
        Thread.sleep(20)
      val finished = done.await(deadlineMillis, TimeUnit.MILLISECONDS)
      val own = meter.read()
      val body = Hiccups.fields(recorder.getIntervalHistogram(), "")
      val why = failures.describe.replace("\\", "\\\\").replace("\"", "\\\"")
      channels.forEach(ch => if ch.isActive then ch.eventLoop.execute(() => leave(ch)))
      s"""{$body,$own,"failures":${failures.count},"why":"$why","finished":$finished}"""
    finally group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly()
