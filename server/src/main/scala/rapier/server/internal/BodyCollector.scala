package rapier.server.internal

import rapier.flow.DrainLoop

import rapier.server.spi.{BodyBudget, BodyReceiver, BodySource, Refusals, RequestBodyException}

import java.nio.ByteBuffer
import java.util.concurrent.atomic.AtomicLong

/**
 * Reads a body on demand, whole, into one array: sized once from the declared length, so that each byte is copied
 * once, from the backend's chunk into the array; grown by doubling when no length is declared (and trimmed at the
 * end), which copies again what came before. The array is taken from the server's `budget` as it grows, a body that
 * would pass it failed with [[Refusals.Busy]] (503): a body decoded from its `Content-Encoding` grows well past what
 * the backend read and counted. What it holds is given back once, by [[release]], when the body is no longer needed.
 */
private[server] final class BodyCollector(
    source: BodySource,
    budget: BodyBudget,
    done: Either[Throwable, BodyCollector.Collected] => Unit
) extends DrainLoop,
      BodyReceiver:
  private var array: Array[Byte] = BodyCollector.Empty
  private var filled = 0
  // What the budget holds for this body: the array's length, then the body's; -1 once given back
  private val taken = AtomicLong()

  def start(): Unit =
    val declared = source.declaredLength
    if grow(if declared >= 0 && declared <= MaxArray then declared.toInt else 8192) then drain()

  // Each drain is one pull; one that a chunk answered before `pull` returned is made by the loop, not inside it.
  protected def step(): Unit = source.pull(this)

  def onChunk(chunk: ByteBuffer): Unit =
    val n = chunk.remaining
    if filled + n > array.length && !grow(math.max(filled + n, math.min(array.length.toLong * 2, MaxArray).toInt)) then
      ()
    else
      chunk.get(array, filled, n)
      filled += n
      drain()

  def onEnd(): Unit =
    val body = if filled == array.length then array else java.util.Arrays.copyOf(array, filled)
    resize(body.length)
    array = BodyCollector.Empty
    done(Right(BodyCollector.Collected(body, release)))

  def onError(cause: Throwable): Unit =
    release()
    done(Left(cause))

  /** Gives back what the budget holds for this body, once, whoever calls first (the request's end or its cancel). */
  val release: () => Unit = () =>
    val held = taken.getAndSet(-1)
    if held > 0 then budget.give(held)

  // Makes the array `capacity` long, if the budget can take the difference; else fails the body
  private def grow(capacity: Int): Boolean =
    val more = capacity - array.length
    if more > 0 && !budget.tryTake(more) then
      source.cancel()
      onError(RequestBodyException(Refusals.Busy))
      false
    else
      taken.addAndGet(more)
      array = java.util.Arrays.copyOf(array, capacity)
      true

  // What the budget holds becomes `length`, the body's trimmed size
  private def resize(length: Int): Unit =
    val held = taken.get
    if held > length then
      budget.give(held - length)
      taken.set(length)

  private inline def MaxArray = Int.MaxValue - 8

private[server] object BodyCollector:
  private val Empty = new Array[Byte](0)

  /** A body read whole, and how to give its bytes back to the budget once it is no longer needed. */
  final class Collected(val bytes: Array[Byte], val release: () => Unit)
