package rapier.perf.ws

import io.netty.channel.{ChannelHandlerContext, SimpleChannelInboundHandler}
import io.netty.handler.codec.http.*
import rapier.perf.common.Ticks

import java.net.URI
import java.nio.charset.StandardCharsets

/**
 * The SSE study's client, run in a JVM of its own on the load generator's CPU:
 * {{{
 * java -cp ... rapier.perf.ws.SseClient URL USERS EVENTS
 * }}}
 * Each user opens the event stream and reads `EVENTS` events from it after [[Clients.Settle]] unrecorded ones; each
 * event's data is the `System.nanoTime` of its sending, taken at the server's tick, which every JVM of this machine
 * reads alike. Prints one JSON line: the
 * delivery latencies' percentiles to p99.9999 in milliseconds, and how many users failed.
 */
object SseClient:
  def main(args: Array[String]): Unit =
    if args.length != 3 then
      System.err.println("usage: SseClient URL USERS EVENTS")
      sys.exit(2)
    println(run(URI.create(args(0)), args(1).toInt, args(2).toInt))

  def run(uri: URI, users: Int, events: Int, settle: Int = Clients.Settle): String =
    val read = events + settle
    Clients.run(uri, users, read * Ticks.Millis + 30000, settle, _.close()) { (ch, latencies) =>
      ch.pipeline.addLast(HttpClientCodec(), User(uri, read, latencies))
    }

  /** One user: its request once connected, then the stream's `data:` lines timed as they arrive. */
  private final class User(uri: URI, events: Int, latencies: Clients.Latencies)
      extends SimpleChannelInboundHandler[HttpObject]:
    private val line = StringBuilder()
    private var received = 0

    override def channelActive(ctx: ChannelHandlerContext): Unit =
      val request = DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri.getRawPath)
      request.headers.set(
        HttpHeaderNames.HOST,
        s"${uri.getHost}:${uri.getPort}"
      ).set(HttpHeaderNames.ACCEPT, "text/event-stream")
      ctx.writeAndFlush(request)

    def channelRead0(ctx: ChannelHandlerContext, msg: HttpObject): Unit =
      msg match
        case head: HttpResponse if head.status.code != 200 => latencies.fail(ctx, s"answered ${head.status}")
        case _ => ()
      msg match
        case content: HttpContent => read(ctx, content.content.toString(StandardCharsets.UTF_8))
        case _ => ()

    /** Events may come split at any byte: lines are gathered across chunks. */
    private def read(ctx: ChannelHandlerContext, text: String): Unit =
      var i = 0
      while i < text.length && received < events do
        val c = text.charAt(i)
        if c != '\n' then line.append(c)
        else
          if line.startsWith("data:") then
            latencies.record(java.lang.Long.parseLong(line.substring(5).trim))
            received += 1
            // The user reads no more (the server's writes wait in the socket's buffers) until every user is done
            if received == events && latencies.finish() then ctx.channel.config.setAutoRead(false)
          line.clear()
        i += 1

    override def channelInactive(ctx: ChannelHandlerContext): Unit = latencies.fail(ctx, "the stream ended")
    override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
      latencies.fail(ctx, s"${cause.getClass.getSimpleName}: ${cause.getMessage}")
