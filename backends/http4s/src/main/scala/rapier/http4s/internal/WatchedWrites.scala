package rapier.http4s.internal

import cats.effect.Async
import cats.effect.std.Semaphore
import fs2.Chunk
import fs2.io.net.Socket
import rapier.server.spi.FrameEdges

/**
 * A watched WebSocket's writes, one at a time: Ember's frames, which it may write in pieces, and the close Rapier owes
 * a client that broke a rule, sent at the end of the frame being written, after which Ember's writes are dropped.
 */
private[http4s] final class WatchedWrites[F[_]](socket: Socket[F], permits: Semaphore[F])(using F: Async[F]):
  import WatchedWrites.given
  private val edges = FrameEdges()
  // Guarded by the permit
  private var owed: Chunk[Byte] | Null = null
  private var sent = false

  /** One of Ember's writes: passed on, up to the owed close, which follows the end of its frame; nothing after it. */
  def write(bytes: Chunk[Byte]): F[Unit] = permits.permit.surround(F.defer {
    if sent then F.unit
    else
      val edge = edges.follow(bytes, bytes.size)
      if owed == null || edge < 0 then socket.write(bytes)
      else if edge == 0 then sendOwed
      else F.productR(socket.write(bytes.take(edge)))(sendOwed)
  })

  /** Owes the client `frame`, a close: sent now, or at the end of the frame being written. */
  def close(frame: Chunk[Byte]): F[Unit] = permits.permit.surround(F.defer {
    if sent || owed != null then F.unit
    else
      owed = frame
      if edges.atEdge then sendOwed else F.unit
  })

  private def sendOwed: F[Unit] =
    sent = true
    socket.write(owed.nn)

private[http4s] object WatchedWrites:
  given FrameEdges.At[Chunk[Byte]] = (bytes, i) => bytes(i)
