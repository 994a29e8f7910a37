package rapier.http4s.internal

import cats.effect.Async
import fs2.Chunk
import fs2.io.net.Socket
import rapier.server.spi.TlsRecords

/**
 * A connection's bytes before its TLS engine reads them: at a renegotiation its client starts (which the JDK's engine
 * would honour, a handshake's CPU each) the input ends there, and Ember closes the connection.
 */
private[http4s] final class NoRenegotiation[F[_]](socket: Socket[F])(using F: Async[F]) extends SocketProxy[F](socket):
  private val records = TlsRecords()
  @volatile private var refused = false

  override def read(maxBytes: Int): F[Option[Chunk[Byte]]] =
    if refused then F.pure(None)
    else
      F.map(socket.read(maxBytes)) {
        case Some(chunk) =>
          val slice = chunk.toArraySlice
          if records.feed(slice.values, slice.offset, slice.offset + slice.length) then
            refused = true
            None
          else Some(chunk)
        case None => None
      }
