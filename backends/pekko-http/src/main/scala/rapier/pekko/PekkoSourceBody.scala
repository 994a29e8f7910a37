package rapier.pekko

import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.{Sink, SinkQueueWithCancel, Source}
import org.apache.pekko.util.ByteString
import rapier.pekko.internal.{Bodies, Pulls}
import rapier.server.spi.{BodyReceiver, BodySource, StreamReader, StreamWriter}
import rapier.{Codec, EndpointIO, RawBodyType}

import scala.concurrent.ExecutionContext
import scala.util.{Failure, Success}

/**
 * The body as a pekko `Source[ByteString, Any]`, `application/octet-stream`, for `Future` logic: a request's is read
 * as the source is pulled, a response's written as the connection takes it (chunked, unless the endpoint sets
 * `Content-Length`). On pekko-http both are pekko-http's own entity streams, passed through with no conversion; on
 * another backend the source is read one pull per chunk, and a response's runs on `materializer`.
 */
def pekkoSourceBody(using Materializer): EndpointIO.Body[Source[ByteString, Any], Source[ByteString, Any]] =
  EndpointIO.Body(RawBodyType.StreamBody(PekkoSourceBody()), Codec.stream)

/** Bodies as pekko `Source`s: see [[pekkoSourceBody]]. */
final class PekkoSourceBody(using materializer: Materializer)
    extends StreamReader[Source[ByteString, Any]],
      StreamWriter[Source[ByteString, Any]]:
  def name: String = "pekko Source[ByteString, Any]"

  def read(source: BodySource): Source[ByteString, Any] =
    val own = source match
      case entity: Bodies.EntitySource => entity.takeSource()
      case _ => null
    if own != null then own.nn else Pulls.source(source)

  // Nothing to start in the endpoint's effect: the source runs at the backend's first pull, or is taken as it is
  def write(stream: Source[ByteString, Any]): StreamWriter.Started =
    StreamWriter.Started(PekkoSourceBody.Running(stream), null)

object PekkoSourceBody:
  /**
   * The logic's source itself, for pekko-http, which sends it as it is; or null when the body is not a pekko source,
   * or something pulled from it already.
   */
  private[pekko] def takeSource(source: BodySource): Source[ByteString, Any] | Null = source match
    case running: Running => running.take()
    case _ => null

  /**
   * A response's source as a backend other than pekko-http pulls it: run at the first pull into a queue, one chunk per
   * pull; cancelling the queue cancels the source.
   */
  private[pekko] final class Running(stream: Source[ByteString, Any])(using materializer: Materializer)
      extends BodySource:
    // Guarded by `this`: null until the first pull; taken once pekko-http sends the source as it is
    private var queue: SinkQueueWithCancel[ByteString] | Null = null
    private var taken = false
    private var cancelled = false

    def declaredLength: Long = -1L

    def take(): Source[ByteString, Any] | Null = synchronized {
      if queue != null || taken || cancelled then null
      else
        taken = true
        stream
    }

    def pull(receiver: BodyReceiver): Unit =
      val q = synchronized {
        // Room for two pulls: one made as the previous one completes was refused as a second at once (seen under load)
        if queue == null && !taken && !cancelled then queue = stream.runWith(Sink.queue[ByteString](2))
        queue
      }
      if q == null then receiver.onEnd()
      else
        q.nn.pull().onComplete {
          // A receiver gets a byte at least: an empty ByteString of the logic's is passed over
          case Success(Some(chunk)) if chunk.isEmpty => pull(receiver)
          case Success(Some(chunk)) => receiver.onChunk(chunk.asByteBuffer)
          case Success(None) => receiver.onEnd()
          case Failure(e) => receiver.onError(e)
        }(using ExecutionContext.parasitic)

    def cancel(): Unit =
      val q = synchronized {
        cancelled = true
        queue
      }
      if q != null then q.nn.cancel()
