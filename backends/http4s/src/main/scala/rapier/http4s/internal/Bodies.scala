package rapier.http4s.internal

import cats.effect.Async
import fs2.{Chunk, Pull, Stream}
import org.http4s.Request
import rapier.cats.Fs2Source
import rapier.server.spi.BodyTooLargeException

import java.util.concurrent.atomic.AtomicLong

/** Request bodies, from http4s's fs2 stream of them. */
private[http4s] object Bodies:
  /**
   * The whole body, in one array: sized from `Content-Length` when declared (Ember reads exactly that many bytes), else
   * grown as chunks arrive, failing with [[BodyTooLargeException]] once past `limit`. Its bytes are counted in `held`
   * as they arrive; the caller lets them go once the request is answered, this method when the body can't be read.
   */
  def read[F[_]](request: Request[F], limit: Long, held: AtomicLong)(using F: Async[F]): F[Array[Byte]] =
    F.defer {
      val into = Accumulator(request.contentLength.getOrElse(-1L), limit, held)
      F.onError(F.map(request.body.chunks.compile.fold(into)(_.add(_)))(_.result())) { case _ => F.delay(into.drop()) }
    }

  /**
   * The body as a source for the interpreter: http4s's stream itself (taken as it is by an fs2 reader), within `limit`
   * when its length is not declared (a declared length past it is refused before).
   */
  def source[F[_]](request: Request[F], limit: Long)(using F: Async[F]): Fs2Source[F] =
    val body =
      if limit == Long.MaxValue || request.contentLength.isDefined then request.body
      else request.body.chunks.through(within(limit)).unchunks
    new Fs2Source[F](body)

  /** Fails with [[BodyTooLargeException]] once more than `limit` bytes have passed. */
  private def within[F[_]](limit: Long)(using F: Async[F]): fs2.Pipe[F, Chunk[Byte], Chunk[Byte]] =
    def go(chunks: Stream[F, Chunk[Byte]], seen: Long): Pull[F, Chunk[Byte], Unit] =
      chunks.pull.uncons1.flatMap {
        case None => Pull.done
        case Some((chunk, rest)) =>
          val total = seen + chunk.size
          if total > limit then Pull.raiseError[F](BodyTooLargeException(limit))
          else Pull.output1(chunk) >> go(rest, total)
      }
    chunks => go(chunks, 0L).stream

  /** A body's bytes as they arrive: one array of the declared length, else one that grows; each chunk copied once. */
  private final class Accumulator(declared: Long, limit: Long, held: AtomicLong):
    private var bytes = new Array[Byte](if declared >= 0 && declared <= limit then declared.toInt else 256)
    private var size = 0

    def add(chunk: Chunk[Byte]): Accumulator =
      val n = chunk.size
      if size.toLong + n > limit then throw BodyTooLargeException(limit)
      if size + n > bytes.length then bytes = java.util.Arrays.copyOf(bytes, math.max(size + n, bytes.length * 2))
      chunk.copyToArray(bytes, size)
      size += n
      held.addAndGet(n)
      this

    def result(): Array[Byte] = if size == bytes.length then bytes else java.util.Arrays.copyOf(bytes, size)

    def drop(): Unit =
      held.addAndGet(-size)
      size = 0
