package rapier.cats

import cats.effect.{Async, Outcome}
import fs2.{Chunk, Stream}
import rapier.server.spi.{BodyReceiver, ChunkHandoff}

import java.nio.ByteBuffer
import java.util.concurrent.CancellationException

/**
 * A body from an fs2 stream, as a backend pulls it: the stream runs as a fiber of its own ([[run]]) from the first pull
 * on, and offers each chunk; a chunk waits for the backend's pull, and the fiber for the chunk to be taken, so the
 * stream runs no faster than the connection takes its bytes (one chunk ahead). The backend cancelling the source (a
 * client gone, a HEAD request) fails the fiber's next offer, which ends the stream and runs its finalizers.
 *
 * A backend whose own bodies are fs2 streams (http4s) passes them straight through instead: it hands a request body
 * over as an `Fs2Source` of it, which [[Fs2Body]]'s reader takes back as the stream it is, and takes a response body
 * back from one with [[takeStream]] — both only while nothing has pulled from it, so that the stream runs once, and
 * with no stage added per chunk. The fiber then ends without running the stream.
 */
final class Fs2Source[F[_]](stream: Stream[F, Byte])(using F: Async[F]) extends ChunkHandoff:
  // Whether the stream runs here (a first pull came), runs elsewhere or never (taken, cancelled), or not yet; and the
  // fiber waiting to know
  @volatile private var fate = Fs2Source.Undecided
  private var fateKnown: (Either[Throwable, Boolean] => Unit) | Null = null

  /** Whether a pull started the stream here: it runs, or ran, in [[run]]'s fiber, which [[cancel]] ends. */
  def runsHere: Boolean = fate == Fs2Source.Here

  /**
   * The stream's fiber: once a first pull comes, offers each chunk, then the end or the failure — told to the pull,
   * so the fiber itself ends without one.
   */
  def run: F[Unit] = F.flatMap(decided) { runsHere =>
    if !runsHere then F.unit
    else
      val running = F.guaranteeCase(stream.chunks.foreach(offer).compile.drain) {
        case Outcome.Succeeded(_) => F.delay(finish(null))
        case Outcome.Errored(e) => F.delay(finish(e))
        case Outcome.Canceled() => F.delay(finish(CancellationException("the response body's stream was cancelled")))
      }
      F.handleError(running)(_ => ())
  }

  /**
   * The stream itself, for a backend that sends fs2 streams as they are, or null once something pulled from this
   * source (the stream runs here then) or cancelled it. After it, this source answers no pull.
   */
  def takeStream(): Stream[F, Byte] | Null =
    if decide(Fs2Source.Elsewhere) then stream
    else null

  private val decided: F[Boolean] = F.async_ { known =>
    val now = synchronized {
      if fate == Fs2Source.Undecided then fateKnown = known
      fate
    }
    if now != Fs2Source.Undecided then known(Right(now == Fs2Source.Here))
  }

  /** Settles where the stream runs, if not settled yet; whether this call settled it. */
  private def decide(where: Int): Boolean =
    var known: (Either[Throwable, Boolean] => Unit) | Null = null
    val settled = synchronized {
      if fate != Fs2Source.Undecided then false
      else
        fate = where
        known = fateKnown
        fateKnown = null
        true
    }
    if known != null then known.nn(Right(where == Fs2Source.Here))
    settled

  private def offer(chunk: Chunk[Byte]): F[Unit] =
    if chunk.isEmpty then F.unit
    else
      F.async_ { done =>
        val slice = chunk.toArraySlice
        offer(
          ByteBuffer.wrap(slice.values, slice.offset, slice.length),
          refusal => done(if refusal == null then Right(()) else Left(refusal.nn))
        )
      }

  override def pull(r: BodyReceiver): Unit =
    if fate == Fs2Source.Undecided then decide(Fs2Source.Here) // settled at the first pull: no lock for the others
    super.pull(r)

  override def cancel(): Unit =
    decide(Fs2Source.Nowhere)
    super.cancel()

private[cats] object Fs2Source:
  val Undecided = 0
  val Here = 1
  val Elsewhere = 2
  val Nowhere = 3
