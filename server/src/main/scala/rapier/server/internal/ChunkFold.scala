package rapier.server.internal

import rapier.flow.DrainLoop

import rapier.BodyChunks
import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.{Future, Promise}
import scala.util.control.NonFatal

/**
 * [[BodyChunks]] over the request's [[BodySource]]: each chunk the source answers is handed to the fold's function as
 * it is — the backend's own buffer, valid until the next pull — and the next is pulled once the function returns.
 * Pulls answered before `pull` returns go round the [[DrainLoop]], not deeper into the stack.
 */
private[server] final class ChunkFold(source: BodySource) extends BodyChunks:
  private val started = AtomicBoolean()

  def fold[A](zero: A)(f: (A, ByteBuffer) => A): Future[A] =
    if !started.compareAndSet(false, true) then
      Future.failed(IllegalStateException("a request body is read once, and this one is read already"))
    else
      val folding = ChunkFolding(source, zero, f)
      folding.start()
      folding.result.future

/** One fold of a body: its state, and the loop of pulls. */
private final class ChunkFolding[A](source: BodySource, zero: A, f: (A, ByteBuffer) => A) extends DrainLoop,
      BodyReceiver:
  val result: Promise[A] = Promise()
  // Touched by one answer at a time: each answer follows the pull the previous one made.
  private var state: A = zero

  def start(): Unit = drain()

  protected def step(): Unit = source.pull(this)

  def onChunk(chunk: ByteBuffer): Unit =
    val next =
      try
        state = f(state, chunk)
        true
      catch
        case NonFatal(e) =>
          source.cancel()
          result.tryFailure(e)
          false
    if next then drain()

  def onEnd(): Unit = result.trySuccess(state)

  def onError(cause: Throwable): Unit = result.tryFailure(cause)
