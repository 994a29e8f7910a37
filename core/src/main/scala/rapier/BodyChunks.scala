package rapier

import java.nio.ByteBuffer
import scala.concurrent.Future

/**
 * A request body read chunk by chunk by a function of the logic's, as the chunks arrive and without a copy: the
 * lightest way to consume a large body (hash it, count it, write it out). The next chunk is read from the connection
 * only once the function has returned, so the function's pace is the back-pressure.
 */
trait BodyChunks:
  /**
   * Folds the body's chunks into a result: `f` is called with each chunk in order — its bytes are those from its
   * position to its limit, and the position need not be 0 — which is valid during the call only (it is the server's
   * buffer: copy what must outlive the call), on the thread that received it — possibly the
   * connection's event loop, so `f` must not block. The future fails with the body's error (a client gone, a body over
   * the limit), or with what `f` throws (the rest of the body is then not read). A body is folded once.
   */
  def fold[A](zero: A)(f: (A, ByteBuffer) => A): Future[A]

  /**
   * Hands each chunk to `f` in order, on the terms of [[fold]]'s function (the chunk valid during the call only, on the
   * thread that received it, never to block); the future completes once the body has ended, or fails as [[fold]]'s
   * does. For a reader that keeps its state itself — a digest, a channel written to, a count in a `var` — it allocates
   * nothing per chunk, where a fold over a primitive (`fold(0L)(…)`) boxes each chunk's result.
   */
  def foreach(f: ByteBuffer => Unit): Future[Unit] = fold(())((_, chunk) => f(chunk))
