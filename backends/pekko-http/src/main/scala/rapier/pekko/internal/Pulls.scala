package rapier.pekko.internal

import org.apache.pekko.NotUsed
import org.apache.pekko.stream.scaladsl.Source
import org.apache.pekko.util.ByteString
import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import scala.concurrent.{ExecutionContext, Future, Promise}

/** A [[BodySource]] pulled from pekko's side: one pull per chunk a stream asks for. */
private[pekko] object Pulls:
  /** The source's next chunk, or its end; failed with the source's failure. */
  def next(source: BodySource): Future[Option[ByteString]] =
    val p = Promise[Option[ByteString]]()
    source.pull(Pulled(p, source.handsOver))
    p.future

  /** The source's chunks from here on, as a pekko `Source`; the source is cancelled when the stream ends. */
  def source(from: BodySource): Source[ByteString, NotUsed] =
    Source
      .unfoldAsync(())(_ => next(from).map(_.map(((), _)))(using ExecutionContext.parasitic))
      .watchTermination() { (m, done) =>
        done.onComplete(_ => from.cancel())(using ExecutionContext.parasitic)
        m
      }

  /**
   * A pull's answer, as a promise: the chunk copied, for it is the source's again at the next pull, unless the source
   * hands it over.
   */
  private final class Pulled(p: Promise[Option[ByteString]], handsOver: Boolean) extends BodyReceiver:
    def onChunk(chunk: ByteBuffer): Unit =
      val bytes =
        if handsOver then ByteString.fromArrayUnsafe(chunk.array, chunk.arrayOffset + chunk.position, chunk.remaining)
        else ByteString(chunk)
      p.success(Some(bytes))
    def onEnd(): Unit = p.success(None)
    def onError(cause: Throwable): Unit = p.failure(cause)
