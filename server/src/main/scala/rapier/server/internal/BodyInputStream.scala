package rapier.server.internal

import rapier.server.spi.{BodyReceiver, BodySource}

import java.io.{IOException, InputStream, InterruptedIOException}
import java.nio.ByteBuffer
import java.util.concurrent.locks.LockSupport

/**
 * A request body as an `InputStream`, for direct-style logic: a read blocks the calling thread (a virtual thread, in
 * direct style) until the backend's [[BodySource]] answers a pull. Bytes are read straight from the backend's chunk,
 * which is valid until the next pull: no copy, and nothing allocated per chunk. Closing it before the end tells the
 * backend the rest is not wanted. Once the request is answered or its connection closed, the backend takes the chunk
 * back ([[revoke]]), under the same lock as the reads from it: a read then fails, and never sees a buffer let go.
 *
 * Like any `InputStream`, it is read by one thread at a time.
 */
private[server] final class BodyInputStream(source: BodySource) extends InputStream, BodyReceiver:
  // The chunk being read, and whether the backend took it back: both guarded by `lock`
  private val lock = Object()
  private var current: ByteBuffer | Null = null
  private var revoked = false
  private var ended = false
  private var closed = false

  // One pull at a time: the reading thread waits for the answer, which may come on any thread.
  @volatile private var answered = false
  @volatile private var answer: ByteBuffer | Null = null
  @volatile private var failure: Throwable | Null = null
  @volatile private var waiter: Thread | Null = null

  def read(): Int =
    if !fill() then -1
    else lock.synchronized(inHand.get() & 0xff)

  override def read(bytes: Array[Byte], offset: Int, length: Int): Int =
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length)
    if length == 0 then 0
    else if !fill() then -1
    else
      lock.synchronized {
        val chunk = inHand
        val n = math.min(length, chunk.remaining)
        chunk.get(bytes, offset, n)
        n
      }

  override def available(): Int = lock.synchronized(if current == null || revoked then 0 else current.nn.remaining)

  override def close(): Unit =
    if !closed then
      closed = true
      lock.synchronized { current = null }
      if !ended then source.cancel()

  override def revoke(): Boolean =
    lock.synchronized {
      revoked = true
      current = null
      answer = null
    }
    true

  /** The chunk in hand, with `lock` held; a failure once the backend took it back. */
  private def inHand: ByteBuffer =
    if revoked then throw gone()
    current.nn

  private def gone() = IOException("the request was answered, or its connection closed, before its body was read")

  /** Makes `current` hold at least one byte, pulling as needed; false at the end of the body. */
  private def fill(): Boolean =
    if closed then throw IOException("the request body's stream is closed")
    while !ended && !holdsBytes do pullAndWait()
    !ended

  private def holdsBytes: Boolean =
    lock.synchronized {
      if revoked then throw gone()
      val has = current != null && current.nn.hasRemaining
      if !has then current = null
      has
    }

  private def pullAndWait(): Unit =
    answered = false
    waiter = Thread.currentThread
    source.pull(this)
    if !answered && source.answersOnThisThread then
      close()
      throw IOException(
        "the request body's InputStream was read on the server's event loop, where a read waits forever for bytes " +
          "only that loop can read: read it on a thread of its own (a Future on another ExecutionContext, a virtual " +
          "thread)"
      )
    while !answered do
      LockSupport.park(this)
      if Thread.interrupted() && !answered then
        close()
        throw InterruptedIOException("interrupted while waiting for the request body")
    waiter = null
    val f = failure
    if f != null then
      ended = true
      throw IOException(s"the request body could not be read: ${f.getMessage}", f)
    lock.synchronized {
      // taken back before it was read
      if revoked then throw gone()
      answer match
        case null => ended = true
        case chunk: ByteBuffer =>
          answer = null
          current = chunk
    }

  def onChunk(chunk: ByteBuffer): Unit = wake(chunk, null)
  def onEnd(): Unit = wake(null, null)
  def onError(cause: Throwable): Unit = wake(null, cause)

  private def wake(chunk: ByteBuffer | Null, cause: Throwable | Null): Unit =
    answer = chunk
    failure = cause
    answered = true
    val thread = waiter
    if thread != null then LockSupport.unpark(thread)
