package rapier.server.internal

import rapier.flow.DrainLoop

import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer

/**
 * Reads a body on demand, whole, into one array: sized once from the declared length, so that each byte is copied
 * once, from the backend's chunk into the array; grown by doubling when no length is declared (and trimmed at the
 * end), which copies again what came before.
 */
private[server] final class BodyCollector(source: BodySource, done: Either[Throwable, Array[Byte]] => Unit)
    extends DrainLoop,
      BodyReceiver:
  private var array: Array[Byte] =
    val declared = source.declaredLength
    if declared >= 0 && declared <= MaxArray then new Array[Byte](declared.toInt) else new Array[Byte](8192)
  private var filled = 0

  def start(): Unit = drain()

  // Each drain is one pull; one that a chunk answered before `pull` returned is made by the loop, not inside it.
  protected def step(): Unit = source.pull(this)

  def onChunk(chunk: ByteBuffer): Unit =
    val n = chunk.remaining
    if filled + n > array.length then
      array = java.util.Arrays.copyOf(array, math.max(filled + n, math.min(array.length.toLong * 2, MaxArray).toInt))
    chunk.get(array, filled, n)
    filled += n
    drain()

  def onEnd(): Unit = done(Right(if filled == array.length then array else java.util.Arrays.copyOf(array, filled)))

  def onError(cause: Throwable): Unit = done(Left(cause))

  private inline def MaxArray = Int.MaxValue - 8
