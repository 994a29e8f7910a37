package fs2.io.net

import cats.effect.{Async, Resource}
import com.comcast.ip4s.{GenSocketAddress, Host, IpAddress, Port, SocketAddress}
import fs2.Stream
import fs2.io.net.tls.TLSContext
import rapier.http4s.internal.SocketProxy

import java.net.ProtocolFamily
import scala.annotation.nowarn
import java.util.concurrent.ThreadFactory

/**
 * `network`, with each socket its servers accept wrapped by `wrap`: how Rapier puts its framing check between Ember
 * and its sockets. It lives in fs2's package because fs2 seals `Network` to it; every method but accepting delegates.
 */
private[fs2] final class RapierGuardedNetwork[F[_]: Async](network: Network[F], wrap: Socket[F] => Socket[F])
    extends Network.UnsealedNetwork[F]:
  private def guarded(server: ServerSocket[F]): ServerSocket[F] = ServerSocket(server, wrapped(server.accept))
  // Each socket held in a scope of its own within the accepted one's: the wrapper's last step runs before the close.
  // Nagle's delay off, as Ember leaves it on: an HTTP/2 answer of two writes waited ~40 ms for the client's ACK.
  private def wrapped(sockets: Stream[F, Socket[F]]): Stream[F, Socket[F]] =
    sockets.flatMap(socket =>
      val noDelay = socket.setOption(java.net.StandardSocketOptions.TCP_NODELAY, java.lang.Boolean.TRUE)
      Stream.exec(Async[F].void(Async[F].attempt(noDelay))) ++ Stream.resource(SocketProxy.held(wrap(socket)))
    )

  def bind(address: GenSocketAddress, options: List[SocketOption]): Resource[F, ServerSocket[F]] =
    network.bind(address, options).map(guarded)
  def bindAndAccept(address: GenSocketAddress, options: List[SocketOption]): Stream[F, Socket[F]] =
    wrapped(network.bindAndAccept(address, options))
  def connect(address: GenSocketAddress, options: List[SocketOption]): Resource[F, Socket[F]] =
    network.connect(address, options)
  def bindDatagramSocket(address: GenSocketAddress, options: List[SocketOption]): Resource[F, DatagramSocket[F]] =
    network.bindDatagramSocket(address, options)
  def tlsContext: TLSContext.Builder[F] = network.tlsContext
  def dns: com.comcast.ip4s.Dns[F] = network.dns
  def interfaces: com.comcast.ip4s.NetworkInterfaces[F] = network.interfaces
  @nowarn("cat=deprecation")
  def socketGroup(threadCount: Int, threadFactory: ThreadFactory): Resource[F, SocketGroup[F]] =
    network.socketGroup(threadCount, threadFactory)
  @nowarn("cat=deprecation")
  def datagramSocketGroup(threadFactory: ThreadFactory): Resource[F, DatagramSocketGroup[F]] =
    network.datagramSocketGroup(threadFactory)
  @nowarn("cat=deprecation")
  def client(to: SocketAddress[Host], options: List[SocketOption]): Resource[F, Socket[F]] =
    network.client(to, options)
  @nowarn("cat=deprecation")
  def server(address: Option[Host], port: Option[Port], options: List[SocketOption]): Stream[F, Socket[F]] =
    wrapped(network.server(address, port, options))
  @nowarn("cat=deprecation")
  def serverResource(
      address: Option[Host],
      port: Option[Port],
      options: List[SocketOption]
  ): Resource[F, (SocketAddress[IpAddress], Stream[F, Socket[F]])] =
    network.serverResource(address, port, options).map((bound, sockets) => (bound, wrapped(sockets)))
  @nowarn("cat=deprecation")
  def openDatagramSocket(
      address: Option[Host],
      port: Option[Port],
      options: List[SocketOption],
      protocolFamily: Option[ProtocolFamily]
  ): Resource[F, DatagramSocket[F]] = network.openDatagramSocket(address, port, options, protocolFamily)

object RapierGuardedNetwork:
  /** `network` with every accepted socket wrapped by `wrap`. */
  def apply[F[_]: Async](network: Network[F], wrap: Socket[F] => Socket[F]): Network[F] =
    new RapierGuardedNetwork(network, wrap)
