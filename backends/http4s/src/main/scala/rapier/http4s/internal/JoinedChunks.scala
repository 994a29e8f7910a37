package rapier.http4s.internal

import cats.effect.Async
import fs2.{Chunk, Stream}
import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer

/**
 * A response body's chunks for Ember, each made of all the source has ready, up to `limit` bytes: Ember writes each
 * chunk it is given on its own (over TLS its own record, over HTTP/2 its own DATA frame), so a source of many small
 * chunks would cost a write each, and a client a record each. A pull its source answers at once is followed by
 * another; one not answered at once ends the chunk, and its answer opens the next, joined by what is ready after it.
 * Each of the source's chunks is copied once into the chunk handed on (the first of a joined chunk twice).
 */
private[http4s] final class JoinedChunks[F[_]](source: BodySource, limit: Int)(using F: Async[F])
    extends BodyReceiver:
  private type Next = Either[Throwable, Option[(Chunk[Byte], Unit)]]
  // All below under the lock: the source may answer on its own thread while the stream asks for the next chunk
  private var buffer: Array[Byte] | Null = null
  private var size = 0
  private var ended = false
  private var failure: Throwable | Null = null
  private var pulling = false
  private var filling = false
  private var callback: (Next => Unit) | Null = null

  /** The next chunk, once the source has given one; None at its end. */
  val next: F[Option[(Chunk[Byte], Unit)]] = F.async_ { cb =>
    synchronized { callback = cb }
    fill()
  }

  /** The chunks from here on; the source is cancelled when the stream ends. */
  def stream: Stream[F, Byte] = Stream.unfoldChunkEval(())(_ => next).onFinalize(F.delay(source.cancel()))

  // Pulls while the source answers at once and the chunk has room, then hands on what there is.
  private def fill(): Unit =
    // One thread fills at a time: the stream asking, or the source answering a pull that was not answered at once
    var again = synchronized {
      if filling || pulling || ended || size >= limit then false
      else
        pulling = true
        filling = true
        true
    }
    while again do
      source.pull(this)
      again = synchronized {
        if pulling || ended || size >= limit then
          filling = false
          false
        else
          pulling = true
          true
      }
    handOn()

  private def handOn(): Unit =
    var cb: (Next => Unit) | Null = null
    var answer: Next | Null = null
    synchronized {
      if callback != null && !filling then
        if size > 0 then
          answer = Right(Some((Chunk.array(buffer.nn, 0, size), ())))
          buffer = null
          size = 0
        else if failure != null then answer = Left(failure.nn)
        else if ended then answer = Right(None)
        if answer != null then
          cb = callback
          callback = null
    }
    if cb != null then cb.nn(answer.nn)

  def onChunk(chunk: ByteBuffer): Unit =
    val answeredLater = synchronized {
      val n = chunk.remaining
      // A lone chunk is copied to its size; a second one ready after it starts a chunk of `limit` bytes
      if buffer == null then buffer = new Array[Byte](n)
      else if size + n > buffer.nn.length then buffer = java.util.Arrays.copyOf(buffer.nn, math.max(size + n, limit))
      chunk.get(buffer.nn, size, n)
      size += n
      pulling = false
      !filling
    }
    // Answered later, what is ready after it joins it
    if answeredLater then fill()

  def onEnd(): Unit = finish(null)
  def onError(cause: Throwable): Unit = finish(cause)

  private def finish(cause: Throwable | Null): Unit =
    val answeredLater = synchronized {
      ended = true
      failure = cause
      pulling = false
      !filling
    }
    if answeredLater then handOn()
