package rapier.http4s.internal

import cats.effect.Async
import com.comcast.ip4s.{GenSocketAddress, IpAddress, SocketAddress}
import fs2.io.net.Socket
import fs2.{Chunk, Pipe, Stream}

import java.io.IOException
import scala.annotation.nowarn
import scala.concurrent.duration.*

/**
 * A connection accepted for TLS, whose reads must bring the handshake and the first request's bytes within `deadline`
 * of the accept, until [[disarm]] (its first decrypted bytes): fs2 runs a handshake inside reads Ember can't time
 * out, so a client that never completes one would hold its connection. A read past the deadline fails, and the
 * connection closes.
 */
private[http4s] final class HandshakeDeadline[F[_]](socket: Socket[F], deadline: FiniteDuration)(using F: Async[F])
    extends Socket[F]:
  private val since = System.nanoTime()
  @volatile private var armed = true

  /** The handshake is done, and the first request is arriving: reads are no longer timed. */
  val disarm: () => Unit = () => armed = false

  def read(maxBytes: Int): F[Option[Chunk[Byte]]] =
    if !armed then socket.read(maxBytes)
    else
      val left = deadline.toNanos - (System.nanoTime() - since)
      val late = F.raiseError[Option[Chunk[Byte]]](
        IOException(s"the TLS handshake and the request's first bytes did not arrive within $deadline")
      )
      // Raced rather than timed out: the read may run in a region fs2 keeps from being cancelled
      if left <= 0 then late
      else F.flatMap(F.race(socket.read(maxBytes), F.sleep(left.nanos)))(_.fold(F.pure, _ => late))

  def readN(numBytes: Int): F[Chunk[Byte]] =
    def more(got: Chunk[Byte]): F[Chunk[Byte]] =
      if got.size >= numBytes then F.pure(got)
      else F.flatMap(read(numBytes - got.size))(_.fold(F.pure(got))(c => more(got ++ c)))
    more(Chunk.empty)

  def reads: Stream[F, Byte] = Stream.repeatEval(read(8192)).unNoneTerminate.unchunks
  def write(bytes: Chunk[Byte]): F[Unit] = socket.write(bytes)
  def writes: Pipe[F, Byte, Nothing] = socket.writes
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
