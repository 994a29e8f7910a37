package rapier.server.spi

import java.nio.ByteBuffer

/**
 * What an effect module's stream of a request body does at each step: pulls one chunk from the [[BodySource]] and
 * waits for it with a callback of its effect's, which gets the chunk copied into an array of its own (the backend's
 * buffer is the reader's only until the next pull, and the stream may keep the chunk), the end, or the failure. One
 * pull at a time, so one callback waits at a time.
 *
 * @tparam A
 *   what the effect's callback takes
 */
abstract class ChunkPuller[A](source: BodySource) extends BodyReceiver:
  @volatile private var callback: (A => Unit) | Null = null

  /** A chunk of the body, as the callback takes it. */
  protected def chunk(bytes: Array[Byte]): A

  /** The end of the body, as the callback takes it. */
  protected def end: A

  /** Why the body can't be read to its end, as the callback takes it. */
  protected def failure(cause: Throwable): A

  /** Pulls the next chunk: `cb` gets it, once. */
  protected final def pullInto(cb: A => Unit): Unit =
    callback = cb
    source.pull(this)

  final def onChunk(buffer: ByteBuffer): Unit =
    val bytes = new Array[Byte](buffer.remaining)
    buffer.get(bytes)
    answer(chunk(bytes))

  final def onEnd(): Unit = answer(end)
  final def onError(cause: Throwable): Unit = answer(failure(cause))

  private def answer(a: A): Unit =
    val cb = callback
    callback = null
    if cb != null then cb(a)
