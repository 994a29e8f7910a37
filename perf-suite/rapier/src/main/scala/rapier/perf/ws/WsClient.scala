package rapier.perf.ws

import io.netty.bootstrap.Bootstrap
import io.netty.channel.nio.NioIoHandler
import io.netty.channel.socket.nio.NioSocketChannel
import io.netty.channel.{Channel, ChannelHandlerContext, ChannelInitializer, ChannelOption, MultiThreadIoEventLoopGroup}
import io.netty.channel.SimpleChannelInboundHandler
import io.netty.handler.codec.http.websocketx.*
import io.netty.handler.codec.http.{HttpClientCodec, HttpObjectAggregator}
import org.HdrHistogram.Recorder
import rapier.perf.common.Hiccups

import java.net.URI
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.{CountDownLatch, ThreadLocalRandom, TimeUnit}

/**
 * The WebSocket study's client (seed 000: users subscribe to a throttled stream; each sends requests at a steady
 * pace and receives timestamped answers; latency is the receive time minus the message's timestamp), run in a JVM of
 * its own on the load generator's CPU:
 * {{{
 * java -cp ... rapier.perf.ws.WsClient URL USERS REQUESTS INTERVAL_MS
 * }}}
 * Each user connects, then sends `REQUESTS` messages `INTERVAL_MS` apart (starting at a random point of the first
 * interval, so that users spread over it) and reads as many answers. An answer carries the `System.nanoTime` of its
 * sending (`/ws/ts`: the server's, at the tick; `/ws/echo`: the client's own, echoed), which every JVM of this machine
 * reads alike. Prints one JSON line: the latencies' percentiles to p99.9999 in milliseconds, and what went wrong.
 */
object WsClient:
  def main(args: Array[String]): Unit =
    if args.length != 4 then
      System.err.println("usage: WsClient URL USERS REQUESTS INTERVAL_MS")
      sys.exit(2)
    val uri = URI.create(args(0))
    val users = args(1).toInt
    val requests = args(2).toInt
    val interval = args(3).toLong
    println(run(uri, users, requests, interval))

  def run(uri: URI, users: Int, requests: Int, intervalMillis: Long): String =
    val recorder = Recorder(3)
    val done = CountDownLatch(users)
    val failures = AtomicLong()
    val echo = uri.getPath.endsWith("/echo")
    val group = MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory())
    try
      val bootstrap = Bootstrap()
        .group(group)
        .channel(classOf[NioSocketChannel])
        .option(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
        .handler(new ChannelInitializer[Channel]:
          override def initChannel(ch: Channel): Unit =
            val config =
              WebSocketClientProtocolConfig.newBuilder().webSocketUri(uri).handshakeTimeoutMillis(30000).build()
            ch.pipeline.addLast(HttpClientCodec(), HttpObjectAggregator(8192), WebSocketClientProtocolHandler(config))
            ch.pipeline.addLast(User(requests, intervalMillis, echo, recorder, done, failures)))
      // Connect in batches, so that the listen backlog takes them all
      for batch <- (0 until users).grouped(100) do
        batch.foreach { _ =>
          bootstrap.connect(uri.getHost, uri.getPort).addListener { (f: io.netty.channel.ChannelFuture) =>
            if !f.isSuccess then
              failures.incrementAndGet()
              done.countDown()
          }
        }
        Thread.sleep(20)
      val deadline = requests * intervalMillis + 30000
      val finished = done.await(deadline, TimeUnit.MILLISECONDS)
      val h = recorder.getIntervalHistogram()
      val body = Hiccups.json(h).drop(1).dropRight(1)
      s"""{$body,"failures":${failures.get},"finished":$finished}"""
    finally group.shutdownGracefully(0, 1, TimeUnit.SECONDS)

  /** One user: its messages on a timer of its connection's loop, its answers timed as they arrive. */
  private final class User(
      requests: Int,
      intervalMillis: Long,
      echo: Boolean,
      recorder: Recorder,
      done: CountDownLatch,
      failures: AtomicLong
  ) extends SimpleChannelInboundHandler[WebSocketFrame]:
    private var sent = 0
    private var received = 0
    private var finished = false

    override def userEventTriggered(ctx: ChannelHandlerContext, event: Any): Unit =
      if event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE then
        val first = ThreadLocalRandom.current.nextLong(intervalMillis * 1000)
        ctx.executor.scheduleAtFixedRate(() => send(ctx), first, intervalMillis * 1000, TimeUnit.MICROSECONDS)
      else if event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT then fail(ctx)
      else ctx.fireUserEventTriggered(event)

    private def send(ctx: ChannelHandlerContext): Unit =
      if sent < requests && ctx.channel.isActive then
        sent += 1
        ctx.writeAndFlush(TextWebSocketFrame(if echo then java.lang.Long.toString(System.nanoTime()) else "tick?"))

    def channelRead0(ctx: ChannelHandlerContext, frame: WebSocketFrame): Unit = frame match
      case text: TextWebSocketFrame =>
        val stamp = java.lang.Long.parseLong(text.text())
        recorder.recordValue(math.max(0L, (System.nanoTime() - stamp) / 1000))
        received += 1
        if received == requests && !finished then
          finished = true
          done.countDown()
          ctx.writeAndFlush(CloseWebSocketFrame(1000, "done"))
          ctx.executor.schedule((() => ctx.close()): Runnable, 1, TimeUnit.SECONDS)
      case _ => ()

    override def channelInactive(ctx: ChannelHandlerContext): Unit =
      if !finished then fail(ctx)

    override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = fail(ctx)

    private def fail(ctx: ChannelHandlerContext): Unit =
      if !finished then
        finished = true
        failures.incrementAndGet()
        done.countDown()
      ctx.close()
