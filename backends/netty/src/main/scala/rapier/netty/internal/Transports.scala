package rapier.netty.internal

import io.netty.channel.epoll.{Epoll, EpollIoHandler, EpollServerSocketChannel}
import io.netty.channel.nio.NioIoHandler
import io.netty.channel.socket.nio.NioServerSocketChannel
import io.netty.channel.{IoHandlerFactory, ServerChannel}
import rapier.netty.NettyTransport

/** The I/O transport a server runs on. */
private[netty] final case class Transport(
    name: String,
    factory: () => IoHandlerFactory,
    serverChannel: Class[? <: ServerChannel]
)

private[netty] object Transports:
  private val epoll = Transport("epoll", () => EpollIoHandler.newFactory(), classOf[EpollServerSocketChannel])
  private val nio = Transport("nio", () => NioIoHandler.newFactory(), classOf[NioServerSocketChannel])

  def choose(wanted: NettyTransport): Transport = wanted match
    case NettyTransport.Nio => nio
    case NettyTransport.Auto => if Epoll.isAvailable then epoll else nio
    case NettyTransport.Epoll =>
      if Epoll.isAvailable then epoll
      else throw IllegalStateException("The epoll transport is not available here", Epoll.unavailabilityCause)
