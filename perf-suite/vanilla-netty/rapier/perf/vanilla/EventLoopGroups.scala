package rapier.perf.vanilla

import io.netty.channel.{EventLoopGroup, ServerChannel}

/** The event loops of a vanilla server, made by the `EventLoops` of its Netty version. */
final class EventLoopGroups(
    val boss: EventLoopGroup,
    val workers: EventLoopGroup,
    val serverChannel: Class[? <: ServerChannel]
):
  def shutdown(): Unit =
    boss.shutdownGracefully().syncUninterruptibly()
    workers.shutdownGracefully().syncUninterruptibly()
