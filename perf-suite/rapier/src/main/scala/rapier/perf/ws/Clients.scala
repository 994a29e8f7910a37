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
 * p99.9999 in milliseconds, how many users failed and why. Each user's first [[Settle]] arrivals are not recorded:
 * they come while the client's own JVM is cold and its users still connecting, which costs every server alike
 * (measured: 1,000 users reading 50 events had a p99 of 120-150 ms, reading 200 of 34 ms, against the same server).
 * A hiccup meter in the client's JVM runs from its last connection to its end, so that what of the latency is the
 * client's own (its collections, its JIT, its share of its CPU) shows beside the server's: its fields are prefixed
 * `client.` in the JSON line.
 */
private[perf] object Clients:
  /** The arrivals each user leaves out before recording: a second's worth at the studies' 100 ms pace. */
  val Settle = 10

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
  final class Latencies(recorder: Recorder, done: CountDownLatch, failures: Failures, settle: Int):
    private var ended = false
    private var arrived = 0

    /** The latency of what arrives now carrying `stamp`, once the user is past its first `settle` arrivals. */
    def record(stamp: Long): Unit =
      arrived += 1
      if arrived > settle then recorder.recordValue(math.max(0L, (System.nanoTime() - stamp) / 1000))

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
   * Runs `users` users, each a channel `init` sets up, each leaving out its first `settle` arrivals; waits for them at
   * most `deadlineMillis`.
   */
  def run(uri: URI, users: Int, deadlineMillis: Long, settle: Int)(init: (Channel, Latencies) => Unit): String =
    val recorder = Recorder(3)
    val done = CountDownLatch(users)
    val failures = Failures()
    // epoll where there is one: the client shares its CPU with nothing it can spare, and NIO's selector costs more
    val epoll = Epoll.isAvailable
    val group = MultiThreadIoEventLoopGroup(1, if epoll then EpollIoHandler.newFactory() else NioIoHandler.newFactory())
    try
      val bootstrap = Bootstrap()
        .group(group)
        .channel(if epoll then classOf[EpollSocketChannel] else classOf[NioSocketChannel])
        .option(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
        .handler(new ChannelInitializer[Channel]:
          override def initChannel(ch: Channel): Unit = init(ch, Latencies(recorder, done, failures, settle)))
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
      val meter = Hiccups()
      val finished = done.await(deadlineMillis, TimeUnit.MILLISECONDS)
      meter.stop()
      val body = Hiccups.fields(recorder.getIntervalHistogram(), "")
      val own = meter.fieldsSinceLast(Clients.OwnHiccups)
      val why = failures.describe.replace("\\", "\\\\").replace("\"", "\\\"")
      s"""{$body,$own,"failures":${failures.count},"why":"$why","finished":$finished}"""
    finally group.shutdownGracefully(0, 1, TimeUnit.SECONDS)
