package rapier.perf.ws

import io.netty.channel.{ChannelFutureListener, ChannelHandlerContext, SimpleChannelInboundHandler}
import io.netty.handler.codec.http.websocketx.*
import io.netty.handler.codec.http.{HttpClientCodec, HttpObjectAggregator}

import java.net.URI
import java.util.concurrent.{ThreadLocalRandom, TimeUnit}

/**
 * The WebSocket study's client (seed 000: users subscribe to a throttled stream; each sends requests at a steady
 * pace and receives timestamped answers; latency is the receive time minus the message's timestamp), run in a JVM of
 * its own on the load generator's CPU:
 * {{{
 * java -cp ... rapier.perf.ws.WsClient URL USERS REQUESTS INTERVAL_MS
 * }}}
 * ([[rapier.perf.Study]] names it, and the suite runs it.)
 * Each user connects, then sends `REQUESTS` messages `INTERVAL_MS` apart (starting at a random point of the first
 * interval, so that users spread over it) after [[Clients.Settle]] unrecorded ones, and reads as many answers. An
 * answer carries the `System.nanoTime` of its sending (`/ws/ts`: the server's, at the tick; `/ws/echo`: the
 * client's own, echoed), which every JVM of this machine reads alike. Prints one JSON line: the latencies'
 * percentiles to p99.9999 in milliseconds, and what went wrong (a user whose connection ended before its last answer,
 * with the server's close code and reason if it sent one).
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

  def run(uri: URI, users: Int, requests: Int, intervalMillis: Long, settle: Int = Clients.Settle): String =
    val echo = uri.getPath.endsWith("/echo")
    val sent = requests + settle
    Clients.run(uri, users, sent * intervalMillis + 30000, settle, leave) { (ch, latencies) =>
      // Close frames come to the user, which tells a server's close from a normal end
      val config = WebSocketClientProtocolConfig.newBuilder().webSocketUri(uri).handshakeTimeoutMillis(30000)
        .handleCloseFrames(false).build()
      ch.pipeline.addLast(HttpClientCodec(), HttpObjectAggregator(8192), WebSocketClientProtocolHandler(config))
      ch.pipeline.addLast(User(sent, intervalMillis, echo, latencies))
    }

  /** A close frame, then the connection closed once it is written: the run is over, the server's answer not awaited. */
  private def leave(ch: io.netty.channel.Channel): Unit =
    ch.writeAndFlush(CloseWebSocketFrame(1000, "done")).addListener(ChannelFutureListener.CLOSE)

  /** One user: its messages on a timer of its connection's loop, its answers timed as they arrive. */
  private final class User(requests: Int, intervalMillis: Long, echo: Boolean, latencies: Clients.Latencies)
      extends SimpleChannelInboundHandler[WebSocketFrame]:
    private var sent = 0
    private var received = 0

    override def userEventTriggered(ctx: ChannelHandlerContext, event: Any): Unit =
      if event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE then
        val first = ThreadLocalRandom.current.nextLong(intervalMillis * 1000)
        ctx.executor.scheduleAtFixedRate(() => send(ctx), first, intervalMillis * 1000, TimeUnit.MICROSECONDS)
      else if event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT then
        latencies.fail(ctx, "no handshake within 30 s")
      else ctx.fireUserEventTriggered(event)

    private def send(ctx: ChannelHandlerContext): Unit =
      if sent < requests && ctx.channel.isActive then
        sent += 1
        ctx.writeAndFlush(TextWebSocketFrame(if echo then java.lang.Long.toString(System.nanoTime()) else "tick?"))

    def channelRead0(ctx: ChannelHandlerContext, frame: WebSocketFrame): Unit = frame match
      case text: TextWebSocketFrame =>
        latencies.record(java.lang.Long.parseLong(text.text()))
        received += 1
        if received == requests then latencies.finish()
      case close: CloseWebSocketFrame =>
        latencies.fail(ctx, s"closed by the server with ${close.statusCode} ${close.reasonText}")
      case _ => ()

    override def channelInactive(ctx: ChannelHandlerContext): Unit =
      latencies.fail(ctx, "connection closed without a close frame")
    override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
      latencies.fail(ctx, s"${cause.getClass.getSimpleName}: ${cause.getMessage}")
