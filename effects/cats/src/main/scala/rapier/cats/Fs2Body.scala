package rapier.cats

import cats.effect.Async
import fs2.{Chunk, Stream}
import rapier.server.spi.{BodySource, ChunkPuller, StreamReader, StreamWriter}

/**
 * Bodies as fs2's `Stream[F, Byte]`, read from and written to the backend's connection directly: a request body is
 * pulled from the backend one chunk each time the stream wants one, a response body is run as a fiber of its own that
 * hands the backend a chunk each time it pulls one. No Reactive Streams between them (the conversion that cost
 * http4s on Armeria most of its throughput), and nothing per chunk beyond what fs2 itself allocates and one copy of
 * a request's chunk into the array fs2 keeps.
 */
final class Fs2Body[F[_]](using F: Async[F]) extends StreamReader[Stream[F, Byte]], StreamWriter[Stream[F, Byte]]:
  def name: String = "fs2.Stream[F, Byte]"

  def read(source: BodySource): Stream[F, Byte] =
    val own = source match
      case fs2: Fs2Source[?] => fs2.takeStream()
      case _ => null
    if own != null then own.asInstanceOf[Stream[F, Byte]]
    else Fs2Body.Reader[F](source).stream

  def write(stream: Stream[F, Byte]): StreamWriter.Started =
    val source = Fs2Source[F](stream)
    StreamWriter.Started(source, F.void(F.start(source.run)))

private[rapier] object Fs2Body:
  /** Pulls a body's chunks for its stream, one pull per chunk the stream asks for (backends use it too). */
  final class Reader[F[_]](source: BodySource)(using F: Async[F])
      extends ChunkPuller[Either[Throwable, Option[(Chunk[Byte], Unit)]]](source):
    protected def chunk(bytes: Array[Byte]): Either[Throwable, Option[(Chunk[Byte], Unit)]] =
      Right(Some((Chunk.array(bytes), ())))
    protected val end: Either[Throwable, Option[(Chunk[Byte], Unit)]] = Right(None)
    protected def failure(cause: Throwable): Either[Throwable, Option[(Chunk[Byte], Unit)]] = Left(cause)

    val next: F[Option[(Chunk[Byte], Unit)]] = F.async_(pullInto)

    /** The chunks from here on, pulled as the stream asks for them; the source is cancelled when the stream ends. */
    def stream: Stream[F, Byte] = Stream.unfoldChunkEval(())(_ => next).onFinalize(F.delay(source.cancel()))
