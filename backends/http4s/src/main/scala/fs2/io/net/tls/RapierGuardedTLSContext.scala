package fs2.io.net.tls

import com.comcast.ip4s.{GenSocketAddress, IpAddress, SocketAddress}
import fs2.io.net.{DatagramSocket, Socket}
import fs2.{Chunk, Pipe, Stream}

import javax.net.ssl.SSLSession
import scala.annotation.nowarn

/**
 * `context`, with each socket it secures for a server read and written through `guard` once decrypted: how Rapier
 * puts its framing check between Ember and what a client sends over TLS. In fs2's package, beside
 * `RapierGuardedNetwork`, as fs2 seals its contexts and TLS sockets to it; a client's sockets are the context's own.
 */
private[fs2] final class RapierGuardedTLSContext[F[_]](
    context: TLSContext[F],
    guard: (Socket[F], Socket[F]) => Socket[F],
    bounded: cats.arrow.FunctionK[F, F]
) extends TLSContext.UnsealedTLSContext[F]:
  def clientBuilder(socket: Socket[F]): TLSContext.SocketBuilder[F, TLSSocket] = context.clientBuilder(socket)
  def dtlsClientBuilder(
      socket: DatagramSocket[F],
      remoteAddress: SocketAddress[IpAddress]
  ): TLSContext.SocketBuilder[F, DTLSSocket] = context.dtlsClientBuilder(socket, remoteAddress)
  def dtlsServerBuilder(
      socket: DatagramSocket[F],
      remoteAddress: SocketAddress[IpAddress]
  ): TLSContext.SocketBuilder[F, DTLSSocket] = context.dtlsServerBuilder(socket, remoteAddress)

  def serverBuilder(socket: Socket[F]): TLSContext.SocketBuilder[F, TLSSocket] =
    TLSContext.SocketBuilder[F, TLSSocket]((parameters, logger) =>
      context
        .serverBuilder(socket)
        .withParameters(parameters)
        .withLogger(logger)
        .build
        .map(tls => RapierGuardedTLSContext.Guarded(tls, guard(tls, socket), bounded))
    )

object RapierGuardedTLSContext:
  /**
   * `context`, with every server socket it secures read and written through `guard` (given it and the socket beneath),
   * its calls that wait for the handshake within `bounded` (a timeout).
   */
  def apply[F[_]](
      context: TLSContext[F],
      guard: (Socket[F], Socket[F]) => Socket[F],
      bounded: cats.arrow.FunctionK[F, F]
  ): TLSContext[F] = new RapierGuardedTLSContext(context, guard, bounded)

  /** A TLS socket whose bytes go through `guarded` (the guard over `tls`), its session `tls`'s. */
  private[tls] final class Guarded[F[_]](tls: TLSSocket[F], guarded: Socket[F], bounded: cats.arrow.FunctionK[F, F])
      extends TLSSocket.UnsealedTLSSocket[F]:
    // Each waits for the handshake, which a client may never complete
    def session: F[SSLSession] = bounded(tls.session)
    def applicationProtocol: F[String] = bounded(tls.applicationProtocol)
    def beginHandshake: F[Unit] = tls.beginHandshake

    def read(maxBytes: Int): F[Option[Chunk[Byte]]] = guarded.read(maxBytes)
    def readN(numBytes: Int): F[Chunk[Byte]] = guarded.readN(numBytes)
    def reads: Stream[F, Byte] = guarded.reads
    def write(bytes: Chunk[Byte]): F[Unit] = guarded.write(bytes)
    def writes: Pipe[F, Byte, Nothing] = guarded.writes
    def endOfInput: F[Unit] = guarded.endOfInput
    def endOfOutput: F[Unit] = guarded.endOfOutput
    @nowarn("cat=deprecation")
    def isOpen: F[Boolean] = guarded.isOpen
    def address: GenSocketAddress = guarded.address
    def peerAddress: GenSocketAddress = guarded.peerAddress
    @nowarn("cat=deprecation")
    def localAddress: F[SocketAddress[IpAddress]] = guarded.localAddress
    @nowarn("cat=deprecation")
    def remoteAddress: F[SocketAddress[IpAddress]] = guarded.remoteAddress
    def supportedOptions: F[Set[java.net.SocketOption[?]]] = guarded.supportedOptions
    def getOption[A](key: java.net.SocketOption[A]): F[Option[A]] = guarded.getOption(key)
    def setOption[A](key: java.net.SocketOption[A], value: A): F[Unit] = guarded.setOption(key, value)
