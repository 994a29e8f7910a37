package rapier.netty.internal

import io.netty.channel.{Channel, ChannelFuture, ChannelFutureListener}
import io.netty.channel.group.DefaultChannelGroup
import io.netty.util.concurrent.GlobalEventExecutor
import rapier.server.spi.{Admission, BodyBudget}

/**
 * The open connections of a server: counted against the limit, and kept for a graceful shutdown; and what decides which
 * of their requests are served, and how (`admission`), with the budget of the body bytes they hold. Closed channels
 * leave the group by themselves.
 */
private[netty] final class Connections(max: Int, val admission: Admission):
  val group = DefaultChannelGroup("rapier-connections", GlobalEventExecutor.INSTANCE)
  private val open = java.util.concurrent.atomic.AtomicInteger()

  /** The request-body bytes the connections hold, against the server's budget. */
  def bodies: BodyBudget = admission.budget

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
