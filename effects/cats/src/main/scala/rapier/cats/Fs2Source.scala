package rapier.cats

import cats.effect.{Async, Outcome}
import fs2.{Chunk, Stream}
import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.util.concurrent.CancellationException

/**
 * A response body from an fs2 stream, as the backend pulls it: the stream runs as a fiber of its own ([[run]]) and
 * offers each chunk; a chunk waits for the backend's pull, and the fiber for the chunk to be taken, so the stream runs
 * no faster than the connection takes its bytes (one chunk ahead). The backend cancelling the source (a client gone,
 * a HEAD request) fails the fiber's next offer, which ends the stream and runs its finalizers.
 */
private final class Fs2Source[F[_]](using F: Async[F]) extends BodySource:
  // Guarded by `this`: a pull waiting for a chunk, or a chunk (and its offer's callback) waiting for a pull
  private var receiver: BodyReceiver | Null = null
  private var offered: Chunk[Byte] | Null = null
  private var offerDone: (Either[Throwable, Unit] => Unit) | Null = null
  private var ended = false
  private var failure: Throwable | Null = null
  private var cancelled = false

  def declaredLength: Long = -1L

  /** The stream's fiber: offers each chunk, then the end or the failure. */
  def run(stream: Stream[F, Byte]): F[Unit] =
    F.guaranteeCase(stream.chunks.foreach(offer).compile.drain) {
      case Outcome.Succeeded(_) => F.delay(finish(null))
      case Outcome.Errored(e) => F.delay(finish(e))
      case Outcome.Canceled() => F.delay(finish(CancellationException("the response body's stream was cancelled")))
    }

  private def offer(chunk: Chunk[Byte]): F[Unit] =
    if chunk.isEmpty then F.unit
    else
      F.async_ { done =>
        var now: BodyReceiver | Null = null
        synchronized {
          if cancelled then ()
          else if receiver != null then
            now = receiver
            receiver = null
          else
            offered = chunk
            offerDone = done
        }
        if cancelled then done(Left(CancellationException("the client no longer wants the response body")))
        else if now != null then
          now.nn.onChunk(view(chunk))
          done(Right(()))
      }

  def pull(r: BodyReceiver): Unit =
    var chunk: Chunk[Byte] | Null = null
    var done: (Either[Throwable, Unit] => Unit) | Null = null
    var over = false
    synchronized {
      if offered != null then
        chunk = offered
        done = offerDone
        offered = null
        offerDone = null
      else if ended then over = true
      else receiver = r
    }
    if chunk != null then
      r.onChunk(view(chunk.nn))
      done.nn(Right(()))
    else if over then
      if failure == null then r.onEnd() else r.onError(failure.nn)

  def cancel(): Unit =
    var done: (Either[Throwable, Unit] => Unit) | Null = null
    synchronized {
      cancelled = true
      receiver = null
      offered = null
      done = offerDone
      offerDone = null
    }
    if done != null then done.nn(Left(CancellationException("the client no longer wants the response body")))

  private def finish(cause: Throwable | Null): Unit =
    var now: BodyReceiver | Null = null
    synchronized {
      ended = true
      failure = cause
      now = receiver
      receiver = null
    }
    if now != null then
      if cause == null then now.nn.onEnd() else now.nn.onError(cause.nn)

  private def view(chunk: Chunk[Byte]): ByteBuffer =
    val slice = chunk.toArraySlice
    ByteBuffer.wrap(slice.values, slice.offset, slice.length)
