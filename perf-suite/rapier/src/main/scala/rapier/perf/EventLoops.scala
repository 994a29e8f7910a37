package rapier.perf.vanilla

import io.netty.channel.epoll.{Epoll, EpollIoHandler, EpollServerSocketChannel}
import io.netty.channel.nio.NioIoHandler
import io.netty.channel.socket.nio.NioServerSocketChannel
import io.netty.channel.MultiThreadIoEventLoopGroup

/**
 * Event loops on Netty 4.2: the one part of the vanilla server that differs between Netty versions. The same
 * choices as Rapier's: epoll where available, one accepting thread, `threads` I/O threads.
 */
object EventLoops:
  def create(threads: Int): EventLoopGroups =
    if Epoll.isAvailable then
      EventLoopGroups(
        MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory()),
        MultiThreadIoEventLoopGroup(threads, EpollIoHandler.newFactory()),
        classOf[EpollServerSocketChannel]
      )
    else
      EventLoopGroups(
        MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()),
        MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory()),
        classOf[NioServerSocketChannel]
      )
