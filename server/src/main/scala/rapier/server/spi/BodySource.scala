package rapier.server.spi

import java.nio.ByteBuffer

/**
 * A request body read on demand, chunk by chunk, only as fast as its reader asks: the backend reads from the
 * connection only while a pull is outstanding, and that is the back-pressure.
 *
 * One reader, and at most one pull outstanding at a time. The backend answers each pull with exactly one call on the
 * receiver it was given, on any thread, possibly before `pull` returns.
 */
trait BodySource:
  /** The length the request declares (Content-Length), or -1 when it declares none: lets a reader size one buffer. */
  def declaredLength: Long

  /** Asks for the next chunk: `receiver` gets exactly one of its calls. */
  def pull(receiver: BodyReceiver): Unit

  /**
   * The reader wants no more: the backend drops what it holds and discards, or stops reading, the rest. Safe to call
   * more than once, and after the end.
   */
  def cancel(): Unit

  /**
   * Whether the calling thread is the one that answers pulls (a backend's event loop): a reader that blocked it to
   * wait for an answer would wait forever. Blocking readers check it when a pull is not answered at once.
   */
  def answersOnThisThread: Boolean = false

  /**
   * Whether each chunk is the reader's to keep (a fresh array, wrapped whole from its buffer's offset): a reader that
   * keeps chunks then needs no copy of its own.
   */
  def handsOver: Boolean = false

object BodySource:
  /**
   * A body already read whole, handed over in one chunk: what a backend that reads bodies before dispatch gives a
   * streaming input.
   */
  def of(bytes: Array[Byte]): BodySource = new BodySource:
    private var sent = false
    def declaredLength: Long = bytes.length.toLong
    def pull(receiver: BodyReceiver): Unit =
      if sent || bytes.length == 0 then receiver.onEnd()
      else
        sent = true
        receiver.onChunk(ByteBuffer.wrap(bytes))
    def cancel(): Unit = ()

/** What a pull delivers: a chunk, the end, or why the body can't be read to its end. */
trait BodyReceiver:
  /**
   * Bytes of the body, at least one. They are the reader's only until its next pull or cancel, or until the request is
   * answered or its connection closes: a reader that keeps them longer copies them.
   */
  def onChunk(chunk: ByteBuffer): Unit

  /** The body is complete. */
  def onEnd(): Unit

  /** The body can't be read to its end: [[BodyTooLargeException]] past the limit, or a broken connection. */
  def onError(cause: Throwable): Unit

  /**
   * The request was answered, or its connection closed, while this reader held a chunk: called on the backend's
   * thread before the chunk is let go. True when the reader no longer reads it once this returns (the default, for a
   * reader done with each chunk when `onChunk` returns); false when it is still reading it on another thread and will
   * pull or cancel once done, the chunk then let go.
   */
  def revoke(): Boolean = true
