package rapier.http4s.internal

import cats.effect.Async
import com.comcast.ip4s.{GenSocketAddress, IpAddress, SocketAddress}
import fs2.io.net.Socket
import fs2.{Chunk, Pipe, Stream}

import scala.annotation.nowarn

/**
 * A socket passing everything on to `socket`: what Rapier's wrappers of Ember's sockets extend, overriding what they
 * change. `readN` and `reads` go through `read`, and `writes` through `write`, so that a wrapper of those sees every
 * byte. Public for the wrapper of TLS sockets that fs2 keeps to its own package.
 */
abstract class SocketProxy[F[_]](socket: Socket[F])(using F: Async[F]) extends Socket[F]:
  def read(maxBytes: Int): F[Option[Chunk[Byte]]] = socket.read(maxBytes)

  def readN(numBytes: Int): F[Chunk[Byte]] =
    def more(got: Chunk[Byte]): F[Chunk[Byte]] =
      if got.size >= numBytes then F.pure(got)
      else
        F.flatMap(read(numBytes - got.size)) {
          case Some(c) => more(got ++ c)
          case None => F.pure(got)
        }
    more(Chunk.empty)

  def reads: Stream[F, Byte] = Stream.repeatEval(read(SocketProxy.ReadSize)).unNoneTerminate.unchunks
  def write(bytes: Chunk[Byte]): F[Unit] = socket.write(bytes)
  def writes: Pipe[F, Byte, Nothing] = _.chunks.foreach(write)
  def endOfInput: F[Unit] = socket.endOfInput
  def endOfOutput: F[Unit] = socket.endOfOutput
  @nowarn("cat=deprecation")
  def isOpen: F[Boolean] = socket.isOpen
  def address: GenSocketAddress = socket.address
  def peerAddress: GenSocketAddress = socket.peerAddress
  @nowarn("cat=deprecation")
  def localAddress: F[SocketAddress[IpAddress]] = socket.localAddress
  @nowarn("cat=deprecation")
  def remoteAddress: F[SocketAddress[IpAddress]] = socket.remoteAddress
  def supportedOptions: F[Set[java.net.SocketOption[?]]] = socket.supportedOptions
  def getOption[A](key: java.net.SocketOption[A]): F[Option[A]] = socket.getOption(key)
  def setOption[A](key: java.net.SocketOption[A], value: A): F[Unit] = socket.setOption(key, value)

  /** What to do once Ember is done with the connection, before it is closed. */
  def beforeClose: F[Unit] = F.unit

object SocketProxy:
  /** `socket` for as long as Ember uses it, a proxy's `beforeClose` run when Ember is done. */
  def held[F[_]](socket: Socket[F])(using F: Async[F]): cats.effect.Resource[F, Socket[F]] =
    cats.effect.Resource.make(F.pure(socket)) {
      case proxy: SocketProxy[F] @unchecked => proxy.beforeClose
      case _ => F.unit
    }

  private val ReadSize = 8192
