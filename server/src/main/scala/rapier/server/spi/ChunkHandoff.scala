package rapier.server.spi

import java.nio.ByteBuffer
import java.util.concurrent.CancellationException

/**
 * A response body an effect module's stream produces, as the backend pulls it: the stream's fiber [[offer]]s each
 * chunk and waits until it is taken; a chunk waits for the backend's pull, and the fiber for the chunk to be taken, so
 * the stream runs no faster than the connection takes its bytes (one chunk ahead). The backend cancelling the source (a
 * client gone, a HEAD request) fails the offer waiting and every later one, which ends the stream and runs its
 * finalizers. The fiber reports the stream's end with [[finish]].
 *
 * What fs2's and ZIO's bodies share; each wraps its stream's chunks and its fiber's wait around it.
 */
class ChunkHandoff extends BodySource:
  // Guarded by `this`: a pull waiting for a chunk, or a chunk (and its offer's callback) waiting for a pull
  private var receiver: BodyReceiver | Null = null
  private var offered: ByteBuffer | Null = null
  private var offerTaken: ChunkHandoff.Taken | Null = null
  private var ended = false
  private var failure: Throwable | Null = null
  private var cancelled = false

  def declaredLength: Long = -1L

  /**
   * Hands `chunk` (at least one byte) to the backend's pull, now or at the next one: `taken` is called once, with null
   * once the backend has it, or with why it never will (the source cancelled), on any thread.
   */
  final def offer(chunk: ByteBuffer, taken: ChunkHandoff.Taken): Unit =
    var now: BodyReceiver | Null = null
    val refused = synchronized {
      if cancelled then true
      else
        if receiver != null then
          now = receiver
          receiver = null
        else
          offered = chunk
          offerTaken = taken
        false
    }
    if refused then taken.done(ChunkHandoff.cancellation())
    else if now != null then
      now.nn.onChunk(chunk)
      taken.done(null)

  /** The stream ended: the pull waiting, or the next, gets the end, or `cause` when the stream failed. */
  final def finish(cause: Throwable | Null): Unit =
    var now: BodyReceiver | Null = null
    synchronized {
      ended = true
      failure = cause
      now = receiver
      receiver = null
    }
    if now != null then
      if cause == null then now.nn.onEnd() else now.nn.onError(cause.nn)

  def pull(r: BodyReceiver): Unit =
    var chunk: ByteBuffer | Null = null
    var taken: ChunkHandoff.Taken | Null = null
    var over = false
    synchronized {
      if offered != null then
        chunk = offered
        taken = offerTaken
        offered = null
        offerTaken = null
      else if ended then over = true
      else receiver = r
    }
    if chunk != null then
      r.onChunk(chunk.nn)
      taken.nn.done(null)
    else if over then
      if failure == null then r.onEnd() else r.onError(failure.nn)

  def cancel(): Unit =
    var taken: ChunkHandoff.Taken | Null = null
    synchronized {
      cancelled = true
      receiver = null
      offered = null
      taken = offerTaken
      offerTaken = null
    }
    if taken != null then taken.nn.done(ChunkHandoff.cancellation())

object ChunkHandoff:
  /** An offer's callback: null once its chunk is taken, else why it never will be. */
  trait Taken:
    def done(refusal: Throwable | Null): Unit

  private def cancellation(): CancellationException =
    CancellationException("the client no longer wants the response body")
