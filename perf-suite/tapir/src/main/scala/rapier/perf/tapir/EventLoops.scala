package rapier.perf.vanilla

import io.netty.channel.epoll.{Epoll, EpollEventLoopGroup, EpollServerSocketChannel}
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.channel.socket.nio.NioServerSocketChannel

/**
 * Event loops on Netty 4.1 (the version Tapir brings): epoll where available, one accepting thread, `threads` I/O
 * threads — the same choices as on 4.2.
 */
object EventLoops:
  def create(threads: Int): EventLoopGroups =
    if Epoll.isAvailable then
      EventLoopGroups(EpollEventLoopGroup(1), EpollEventLoopGroup(threads), classOf[EpollServerSocketChannel])
    else EventLoopGroups(NioEventLoopGroup(1), NioEventLoopGroup(threads), classOf[NioServerSocketChannel])
