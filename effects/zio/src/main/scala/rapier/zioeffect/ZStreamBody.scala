package rapier.zioeffect

import rapier.server.spi.{BodySource, ChunkHandoff, ChunkPuller, StreamReader, StreamWriter}
import zio.stream.ZStream
import zio.{Chunk, Exit, IO, UIO, ZIO}

import java.nio.ByteBuffer
import java.util.concurrent.CancellationException

/**
 * Bodies as ZIO's `ZStream[Any, Throwable, Byte]`, read from and written to the backend's connection directly: a
 * request body is pulled from the backend one chunk each time the stream wants one, a response body is run as a fiber
 * of its own that hands the backend a chunk each time it pulls one. No Reactive Streams between them, and nothing per
 * chunk beyond what ZIO itself allocates and one copy of a request's chunk into the array the stream keeps.
 */
object ZStreamBody extends StreamReader[ZStream[Any, Throwable, Byte]], StreamWriter[ZStream[Any, Throwable, Byte]]:
  def name: String = "ZStream[Any, Throwable, Byte]"

  def read(source: BodySource): ZStream[Any, Throwable, Byte] = Reader(source).stream

  def write(stream: ZStream[Any, Throwable, Byte]): StreamWriter.Started =
    val source = Source(stream)
    StreamWriter.Started(source, ZioRunner.forkDaemon(source.run))

  /** Pulls a body's chunks for its stream, one pull per chunk the stream asks for. */
  private final class Reader(source: BodySource) extends ChunkPuller[IO[Option[Throwable], Chunk[Byte]]](source):
    protected def chunk(bytes: Array[Byte]): IO[Option[Throwable], Chunk[Byte]] = Exit.succeed(Chunk.fromArray(bytes))
    protected val end: IO[Option[Throwable], Chunk[Byte]] = Exit.fail(None)
    protected def failure(cause: Throwable): IO[Option[Throwable], Chunk[Byte]] = Exit.fail(Some(cause))

    private val next: IO[Option[Throwable], Chunk[Byte]] = ZIO.async(pullInto)

    /** The chunks from here on, pulled as the stream asks for them; the source is cancelled when the stream ends. */
    def stream: ZStream[Any, Throwable, Byte] =
      ZStream.repeatZIOChunkOption(next).ensuring(ZIO.succeed(source.cancel()))

  /**
   * A response body from a stream, as the backend pulls it (see [[ChunkHandoff]]): its fiber ([[run]]) offers each
   * chunk and waits until it is taken.
   */
  private final class Source(stream: ZStream[Any, Throwable, Byte]) extends ChunkHandoff:
    def run: UIO[Unit] =
      stream
        .runForeachChunk(offer)
        .onExit {
          case Exit.Success(_) => ZIO.succeed(finish(null))
          case Exit.Failure(cause) =>
            val why =
              if cause.isInterruptedOnly then CancellationException("the response body's stream was interrupted")
              else cause.squashTrace
            ZIO.succeed(finish(why))
        }
        .ignore

    private def offer(chunk: Chunk[Byte]): IO[Throwable, Unit] =
      if chunk.isEmpty then ZIO.unit
      else
        ZIO.async(cb => offer(view(chunk), refusal => cb(if refusal == null then ZIO.unit else Exit.fail(refusal.nn))))

    // A chunk over an array (what `Chunk.fromArray` and most byte streams make) is handed over as it is, with no copy
    private def view(chunk: Chunk[Byte]): ByteBuffer = chunk match
      case bytes: Chunk.ByteArray => ByteBuffer.wrap(bytes.array, bytes.offset, bytes.length)
      case other => ByteBuffer.wrap(other.toArray)
