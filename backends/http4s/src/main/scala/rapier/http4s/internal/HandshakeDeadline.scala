package rapier.http4s.internal

import cats.effect.Async
import fs2.io.net.Socket
import fs2.Chunk

import java.io.IOException
import scala.concurrent.duration.*

/**
 * A connection accepted for TLS, whose reads must bring the handshake and the first request's bytes within `deadline`
 * of the accept, until [[disarm]] (its first decrypted bytes): fs2 runs a handshake inside reads Ember can't time
 * out, so a client that never completes one would hold its connection. A read past the deadline fails, and the
 * connection closes.
 */
private[http4s] final class HandshakeDeadline[F[_]](socket: Socket[F], deadline: FiniteDuration)(using F: Async[F])
    extends SocketProxy[F](socket):
  private val since = System.nanoTime()
  @volatile private var armed = true

  /** The handshake is done, and the first request is arriving: reads are no longer timed. */
  val disarm: () => Unit = () => armed = false

  override def read(maxBytes: Int): F[Option[Chunk[Byte]]] =
    if !armed then socket.read(maxBytes)
    else
      val left = deadline.toNanos - (System.nanoTime() - since)
      val late = F.raiseError[Option[Chunk[Byte]]](
        IOException(s"the TLS handshake and the request's first bytes did not arrive within $deadline")
      )
      // Raced rather than timed out: the read may run in a region fs2 keeps from being cancelled
      if left <= 0 then late
      else F.flatMap(F.race(socket.read(maxBytes), F.sleep(left.nanos)))(_.fold(F.pure, _ => late))
