package rapier.perf.vanilla

import io.netty.channel.epoll.{Epoll, EpollEventLoopGroup, EpollServerSocketChannel}
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.channel.socket.nio.NioServerSocketChannel
import io.netty.channel.{EventLoopGroup, ServerChannel}

/**
 * Event loops on Netty 4.1 (the version Tapir brings): epoll where available, one accepting thread, `threads` I/O
 * threads — the same choices as on 4.2.
 */
object EventLoops:
  final class Groups(
      val boss: EventLoopGroup,
      val workers: EventLoopGroup,
      val serverChannel: Class[? <: ServerChannel]
  ):
    def shutdown(): Unit =
      boss.shutdownGracefully().syncUninterruptibly()
      workers.shutdownGracefully().syncUninterruptibly()

  def create(threads: Int): Groups =
    if Epoll.isAvailable then
      Groups(EpollEventLoopGroup(1), EpollEventLoopGroup(threads), classOf[EpollServerSocketChannel])
    else Groups(NioEventLoopGroup(1), NioEventLoopGroup(threads), classOf[NioServerSocketChannel])
