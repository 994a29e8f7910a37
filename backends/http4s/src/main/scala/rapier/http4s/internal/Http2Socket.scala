package rapier.http4s.internal

import cats.effect.std.Semaphore
import cats.effect.{Async, Deferred}
import fs2.Chunk
import fs2.io.net.Socket
import rapier.server.spi.Http2Frames

/**
 * An HTTP/2 connection as Ember's HTTP/2 layer reads and writes it, through an [[Http2Watch]]: first the bytes read
 * past the preface, then the socket's. A limit past, the client gets a GOAWAY, Ember the end of its input, and `ended`
 * completes, which ends the session, and nothing is written after it; a refused stream's RST_STREAM goes out as its
 * HEADERS is read. `arrived` is told
 * once a frame has come after the preface: the head deadline holds until then.
 */
private[http4s] final class Http2Socket[F[_]](
    socket: Socket[F],
    first: Chunk[Byte],
    arrived: (() => Unit) | Null,
    watch: Http2Watch,
    ended: Deferred[F, Unit],
    writing: Semaphore[F]
)(using F: Async[F])
    extends SocketProxy[F](socket):
  private var pending = first
  private var waiting = arrived
  // Once the GOAWAY is sent, nothing follows it: a client may take any frame after it for an error
  @volatile private var goneAway = false

  // Deferred: Ember runs one read's effect many times
  override def read(maxBytes: Int): F[Option[Chunk[Byte]]] = F.defer(next(maxBytes))

  private def next(maxBytes: Int): F[Option[Chunk[Byte]]] =
    if pending.nonEmpty then
      val ready = pending.take(maxBytes)
      pending = pending.drop(maxBytes)
      watched(ready, maxBytes)
    else
      F.flatMap(socket.read(maxBytes)) {
        case None => F.pure(None)
        case Some(chunk) => watched(chunk, maxBytes)
      }

  private def watched(chunk: Chunk[Byte], maxBytes: Int): F[Option[Chunk[Byte]]] =
    if waiting != null then
      waiting.nn()
      waiting = null
    val slice = chunk.toArraySlice
    val passed = watch.inbound(slice.values, slice.offset, slice.length)
    val owed = watch.owedToClient(written = false)
    if watch.cut >= 0 then F.as(F.productR(F.attempt(written(owed)))(goAway(watch.cut)), None)
    // Nothing for Ember in this read (a header held back, frames left out): it reads on
    else if passed.isEmpty then F.productR(written(owed))(next(maxBytes))
    else F.as(written(owed), Some(passed))

  private def written(frames: Array[Byte]): F[Unit] =
    if frames.isEmpty then F.unit else send(Chunk.array(frames))

  /** Writes frames of Rapier's own, between Ember's: one write at a time, none after the GOAWAY. */
  def send(bytes: Chunk[Byte]): F[Unit] =
    writing.permit.surround(F.defer(if goneAway then F.unit else socket.write(bytes)))

  /** Ends the connection with a GOAWAY with `code`, naming the last stream the client opened. */
  def goAway(code: Int): F[Unit] =
    val frame = Chunk.array(Http2Frames.goAway(watch.lastStream, code))
    val last = writing.permit.surround(F.defer {
      val first = !goneAway
      goneAway = true
      if first then socket.write(frame) else F.unit
    })
    // A client that reads nothing can't take it: the connection ends without it after a while
    F.productR(F.attempt(F.timeoutTo(last, Http2Socket.GoAwayWithin, F.unit)))(F.void(ended.complete(())))

  override def write(bytes: Chunk[Byte]): F[Unit] =
    F.flatMap(F.delay {
      val slice = bytes.toArraySlice
      val corrected = watch.outbound(slice.values, slice.offset, slice.length)
      if corrected == null then bytes else Chunk.array(corrected.nn)
    })(sent =>
      F.flatMap(send(sent)) { _ =>
        watch.written()
        if watch.cut >= 0 then goAway(watch.cut) else F.defer(written(watch.owedToClient(written = true)))
      }
    )

private[http4s] object Http2Socket:
  private val GoAwayWithin = scala.concurrent.duration.FiniteDuration(1, "s")
