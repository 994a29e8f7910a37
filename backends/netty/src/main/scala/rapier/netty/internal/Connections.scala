package rapier.netty.internal

import io.netty.channel.{Channel, ChannelFuture, ChannelFutureListener}
import io.netty.channel.group.DefaultChannelGroup
import io.netty.util.concurrent.GlobalEventExecutor

/**
 * The open connections of a server: counted against the limit, and kept for a graceful shutdown. Closed channels
 * leave the group by themselves.
 */
private[netty] final class Connections(max: Int = Int.MaxValue):
  val group = DefaultChannelGroup("rapier-connections", GlobalEventExecutor.INSTANCE)
  private val open = java.util.concurrent.atomic.AtomicInteger()

  /**
   * Bytes of request bodies being read, held by the server until their requests are handed to the interpreter: the
   * arrays sized by Content-Length and the chunks of chunked bodies. Added to once per body (per chunk for a chunked
   * one) and read only when asked, so a striped counter: no contention between event loops.
   */
  val bodyBytes = java.util.concurrent.atomic.LongAdder()

  /** Set when the server starts shutting down: requests arriving after it are answered 503. */
  @volatile var draining: Boolean = false

  /** Counts a new connection in, or returns false when `max` are open already. */
  def tryAdd(channel: Channel): Boolean =
    if open.incrementAndGet() > max then
      open.decrementAndGet()
      false
    else
      channel.closeFuture.addListener(Connections.released(open))
      group.add(channel)
      true

  /** Asks every connection to close once its requests in progress are answered. */
  def drainAll(): Unit =
    draining = true
    group.forEach { channel =>
      channel.eventLoop.execute { () =>
        val handler = channel.pipeline.get(classOf[HttpHandler[?]])
        if handler != null then handler.drain()
        else
          val webSocket = channel.pipeline.get(classOf[NettyWebSocket])
          if webSocket != null then webSocket.goingAway() else channel.close()
      }
    }

private[netty] object Connections:
  /** Counts a connection out when it closes. */
  private def released(open: java.util.concurrent.atomic.AtomicInteger): ChannelFutureListener =
    new ChannelFutureListener:
      def operationComplete(f: ChannelFuture): Unit = open.decrementAndGet()
