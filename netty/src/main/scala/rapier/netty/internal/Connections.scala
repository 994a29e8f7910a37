package rapier.netty.internal

import io.netty.channel.Channel
import io.netty.channel.group.DefaultChannelGroup
import io.netty.util.concurrent.GlobalEventExecutor

/** The open connections of a server, for a graceful shutdown. Closed channels leave the group by themselves. */
private[netty] final class Connections:
  val group = DefaultChannelGroup("rapier-connections", GlobalEventExecutor.INSTANCE)

  /** Set when the server starts shutting down: requests arriving after it are answered 503. */
  @volatile var draining: Boolean = false

  def add(channel: Channel): Unit = group.add(channel)

  /** Asks every connection to close once its requests in progress are answered. */
  def drainAll(): Unit =
    draining = true
    group.forEach { channel =>
      channel.eventLoop.execute { () =>
        val handler = channel.pipeline.get(classOf[HttpHandler])
        if handler != null then handler.drain() else channel.close()
      }
    }
