package rapier.server.internal

import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.util.concurrent.atomic.AtomicInteger

/**
 * Reads a body on demand, whole, into one array: sized once from the declared length, so that each byte is copied
 * once, from the backend's chunk into the array; grown by doubling when no length is declared (and trimmed at the
 * end), which copies again what came before.
 */
private[server] final class BodyCollector(source: BodySource, done: Either[Throwable, Array[Byte]] => Unit)
    extends BodyReceiver:
  private var array: Array[Byte] =
    val declared = source.declaredLength
    if declared >= 0 && declared <= MaxArray then new Array[Byte](declared.toInt) else new Array[Byte](8192)
  private var filled = 0

  // Pulls asked for and not yet made. A source may answer a pull before `pull` returns: the pull that chunk asks for
  // is then made by the loop in `next`, not from inside it, so that a body of many chunks does not grow the stack.
  private val pending = AtomicInteger()

  def start(): Unit = next()

  def onChunk(chunk: ByteBuffer): Unit =
    val n = chunk.remaining
    if filled + n > array.length then
      array = java.util.Arrays.copyOf(array, math.max(filled + n, math.min(array.length.toLong * 2, MaxArray).toInt))
    chunk.get(array, filled, n)
    filled += n
    next()

  def onEnd(): Unit = done(Right(if filled == array.length then array else java.util.Arrays.copyOf(array, filled)))

  def onError(cause: Throwable): Unit = done(Left(cause))

  private def next(): Unit =
    if pending.getAndIncrement() == 0 then
      var missed = 1
      while missed != 0 do
        source.pull(this)
        missed = pending.addAndGet(-missed)

  private inline def MaxArray = Int.MaxValue - 8
