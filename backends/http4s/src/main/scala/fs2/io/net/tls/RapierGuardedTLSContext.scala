package fs2.io.net.tls

import cats.effect.Async
import com.comcast.ip4s.{IpAddress, SocketAddress}
import fs2.io.net.{DatagramSocket, Socket}
import rapier.http4s.internal.SocketProxy

import javax.net.ssl.SSLSession

/**
 * `context`, with each socket it secures for a server read and written through `guard` once decrypted: how Rapier
 * puts its framing check between Ember and what a client sends over TLS. In fs2's package, beside
 * `RapierGuardedNetwork`, as fs2 seals its contexts and TLS sockets to it; a client's sockets are the context's own.
 */
private[fs2] final class RapierGuardedTLSContext[F[_]](
    context: TLSContext[F],
    guard: (Socket[F], Socket[F]) => Socket[F],
    bounded: cats.arrow.FunctionK[F, F],
    beneath: Socket[F] => Socket[F]
)(using Async[F])
    extends TLSContext.UnsealedTLSContext[F]:
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
        .serverBuilder(beneath(socket))
        .withParameters(parameters)
        .withLogger(logger)
        .build
        .flatMap(tls =>
          SocketProxy.held(guard(tls, socket)).map(guarded => RapierGuardedTLSContext.Guarded(tls, guarded, bounded))
        )
    )

object RapierGuardedTLSContext:
  /**
   * `context`, with every server socket it secures read and written through `guard` (given it and the socket beneath),
   * its calls that wait for the handshake within `bounded` (a timeout), and the socket beneath read by the engine
   * through `beneath`.
   */
  def apply[F[_]: Async](
      context: TLSContext[F],
      guard: (Socket[F], Socket[F]) => Socket[F],
      bounded: cats.arrow.FunctionK[F, F],
      beneath: Socket[F] => Socket[F]
  ): TLSContext[F] = new RapierGuardedTLSContext(context, guard, bounded, beneath)

  /** A TLS socket whose bytes go through `guarded` (the guard over `tls`), its session `tls`'s. */
  private[tls] final class Guarded[F[_]: Async](
      tls: TLSSocket[F],
      guarded: Socket[F],
      bounded: cats.arrow.FunctionK[F, F]
  ) extends SocketProxy[F](guarded),
        TLSSocket.UnsealedTLSSocket[F]:
    // Set once the handshake is known complete: Ember asks for the session on every request, and a timeout each
    // time costs a timer and a fiber.
    @volatile private var handshaken = false

    // Each waits for the handshake, which a client may never complete: within `bounded` until it has completed once
    private def afterHandshake[A](fa: F[A]): F[A] =
      if handshaken then fa else Async[F].flatTap(bounded(fa))(_ => Async[F].delay { handshaken = true })

    def session: F[SSLSession] = afterHandshake(tls.session)
    // Rapier serves HTTP/2 itself (its guard sees ALPN's choice): Ember, told h2, would serve it with its defaults
    def applicationProtocol: F[String] =
      Async[F].map(afterHandshake(tls.applicationProtocol))(p => if p == "h2" then "http/1.1" else p)
    def beginHandshake: F[Unit] = tls.beginHandshake
