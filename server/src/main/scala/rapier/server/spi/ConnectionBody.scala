package rapier.server.spi

import rapier.server.{ProblemRenderer, ServerResponse}

import java.io.IOException
import java.nio.ByteBuffer

/**
 * A [[BodySource]] read from the connection as its reader pulls: the bookkeeping every backend that streams request
 * bodies needs, written once. The backend supplies what differs — how a chunk of its own is viewed and released, how
 * to ask its connection for more bytes — and reports what arrives; this class queues it, hands it out one chunk per
 * pull, holds the limit, and decides how the request is answered when its body could not be read.
 *
 * Everything but `pull`, `cancel` and [[answersOnThisThread]] runs on the connection's [[EventLoop]]; those three may
 * be called on any thread and hop to it. Reading from the connection starts at the first pull and goes on while
 * fewer than [[ConnectionBody.HighWater]] bytes wait for the reader; past that it stops, and starts again once the
 * reader has taken them down to [[ConnectionBody.LowWater]]: that is the back-pressure, and the chunks waiting, counted
 * in the `budget`, are all the body that is ever held. Reading ahead this little keeps the connection busy without a
 * read asked for each chunk.
 *
 * @tparam C
 *   the backend's chunk type (Netty's `ByteBuf`, Vert.x's `Buffer`)
 * @param limit
 *   the most bytes the body may have: past it, the reader gets a [[BodyTooLargeException]] and the request is answered
 *   413 (see [[answer]])
 * @param budget
 *   the server's request-body bytes held in memory, in which the chunks waiting are counted
 */
abstract class ConnectionBody[C <: AnyRef](
    loop: EventLoop,
    val declaredLength: Long,
    limit: Long,
    budget: BodyBudget
) extends BodySource:
  private val chunks = java.util.ArrayDeque[C]()
  private var lent: C | Null = null
  // Who the lent chunk is lent to, asked before it is let go under it
  private var lentTo: BodyReceiver | Null = null
  private var waiting: BodyReceiver | Null = null
  private var waitingSinceNanos = 0L
  private var received = 0L
  private var queued = 0L
  private var reading = false
  private var pulled = false
  private var ended = false
  private var cancelled = false
  private var failure: Throwable | Null = null
  private var refusal: RequestSyntax.Invalid | Null = null

  // Pulls and cancels made off the loop, handed to it by one preallocated task each: a pull per chunk allocates none.
  @volatile private var handedOver: BodyReceiver | Null = null
  private val pullTask: Runnable = () =>
    val receiver = handedOver
    handedOver = null
    if receiver != null then pullNow(receiver.nn)
  private val cancelTask: Runnable = () => cancelNow()

  /** How many bytes `chunk` holds. */
  protected def size(chunk: C): Int

  /** The bytes of `chunk`, as a buffer the reader may read until its next pull. */
  protected def view(chunk: C): ByteBuffer

  /** Lets go of `chunk`: the reader is done with it, or it is dropped. */
  protected def release(chunk: C): Unit

  /**
   * Starts (`on`) or stops reading from the connection: while on, what arrives comes back through [[arrived]],
   * [[completed]] or [[failed]]. Netty turns auto-read on and off; Vert.x resumes and pauses the request.
   */
  protected def read(on: Boolean): Unit

  /** A pull waits for bytes from the client: a backend times the wait here (see [[waitingSince]]). */
  protected def awaiting(): Unit = ()

  /** Runs once, at the first pull: a backend answers `Expect: 100-continue` here, so that the client sends its body. */
  protected def firstPull(): Unit = ()

  /**
   * Runs once, when nothing more is read for this body (it arrived whole, failed, or was discarded): a backend lets go
   * here of what it keeps for the body, such as a timer of [[awaiting]]'s, which would otherwise hold the body, and its
   * request, until it fires.
   */
  protected def over(): Unit = ()

  private var overRun = false
  private def readingOver(): Unit =
    if !overRun then
      overRun = true
      over()

  final def pull(receiver: BodyReceiver): Unit =
    if loop.inLoop then pullNow(receiver)
    else
      handedOver = receiver
      loop.execute(pullTask)

  final def cancel(): Unit = if loop.inLoop then cancelNow() else loop.execute(cancelTask)

  final override def answersOnThisThread: Boolean = loop.inLoop

  /** A chunk of the body arrived from the connection; it is this object's to release from now on. */
  final def arrived(chunk: C): Unit =
    val n = size(chunk)
    if cancelled || failure != null || n == 0 then release(chunk)
    else
      received += n
      if received > limit then
        release(chunk)
        failed(BodyTooLargeException(limit))
      else
        chunks.add(chunk)
        budget.take(n)
        queued += n
        answerWaiting()
        if queued > ConnectionBody.HighWater then flow(false)

  /** The body arrived to its end. */
  final def completed(): Unit =
    if failure == null then
      ended = true
      reading = false
      answerWaiting()
      readingOver()

  /**
   * The body can't be read to its end: its framing broke, it came too slowly (a [[RequestBodyException]], whose
   * refusal then answers the request whatever its logic answers), or the connection closed (any other cause: the
   * answer goes nowhere anyway).
   */
  final def failed(cause: Throwable): Unit =
    if failure == null && !ended then
      failure = cause
      reading = false
      cause match
        case client: RequestBodyException => refusal = client.refusal
        case _ =>
      dropQueued()
      val receiver = waiting
      if receiver != null then
        waiting = null
        waitingSinceNanos = 0L
        receiver.nn.onError(cause)
      readingOver()

  /** Whether reading from the connection is over: the body arrived whole, or can't. */
  final def isOver: Boolean = ended || failure != null

  /** Since when (`System.nanoTime`) a pull has waited for bytes from the connection; 0 when none waits. */
  final def waitingSince: Long = waitingSinceNanos

  /**
   * The response to send for this request, given what its logic answered: that, unless the body could not be read
   * (too large, broken, too slow), which is then answered instead.
   */
  final def answer(response: ServerResponse, render: ProblemRenderer): ServerResponse =
    val r = refusal
    if r == null then response else render(r.nn.problem)

  /**
   * Whether the connection can serve another request after this one's response: only if the body was read to its end,
   * as is. Otherwise the client may still be sending it, and the connection must close.
   */
  final def keepsConnection: Boolean = ended && refusal == null

  /**
   * Drops everything held: the request is answered, or its connection gone, and a chunk is the reader's until then at
   * most. The chunk lent is let go now unless its reader still reads it on another thread ([[BodyReceiver.revoke]]),
   * then at that reader's next pull or cancel: a reader off the loop never reads a chunk let go under it. Later chunks
   * are dropped as they come; a pull waiting is answered with an error.
   */
  final def discard(): Unit =
    cancelled = true
    reading = false
    revokeLent()
    dropQueued()
    val receiver = waiting
    if receiver != null then
      waiting = null
      waitingSinceNanos = 0L
      receiver.nn.onError(IOException("the request was answered, or its connection closed, before its body was read"))
    readingOver()

  private def pullNow(receiver: BodyReceiver): Unit =
    releaseLent()
    if !pulled then
      pulled = true
      firstPull()
    if failure != null then receiver.onError(failure.nn)
    else if cancelled then receiver.onError(IOException("the request body was cancelled"))
    else if !chunks.isEmpty || ended then
      answer(receiver)
      if queued < ConnectionBody.LowWater then flow(true)
    else
      waiting = receiver
      waitingSinceNanos = System.nanoTime()
      flow(true)
      if waiting != null then awaiting()

  private def answerWaiting(): Unit =
    val receiver = waiting
    if receiver != null && (!chunks.isEmpty || ended) then
      waiting = null
      waitingSinceNanos = 0L
      answer(receiver.nn)

  private def answer(receiver: BodyReceiver): Unit =
    val chunk = chunks.poll()
    if chunk == null then receiver.onEnd()
    else
      val n = size(chunk)
      budget.give(n)
      queued -= n
      lent = chunk
      lentTo = receiver
      receiver.onChunk(view(chunk))

  private def cancelNow(): Unit =
    // The reader is done with what it holds
    releaseLent()
    if !cancelled then
      waiting = null
      waitingSinceNanos = 0L
      discard()

  /** Reads on or stops, if that changes anything and reading is not over. */
  private def flow(on: Boolean): Unit =
    if on != reading && !ended && failure == null && !cancelled then
      reading = on
      read(on)

  private def releaseLent(): Unit =
    val chunk = lent
    if chunk != null then
      lent = null
      lentTo = null
      release(chunk.nn)

  private def revokeLent(): Unit =
    val to = lentTo
    if lent != null && (to == null || to.nn.revoke()) then releaseLent()

  private def dropQueued(): Unit =
    var chunk = chunks.poll()
    while chunk != null do
      budget.give(size(chunk))
      release(chunk)
      chunk = chunks.poll()
    queued = 0L

object ConnectionBody:
  /** Bytes waiting for the reader past which reading from the connection stops. */
  val HighWater: Long = 256 * 1024

  /** Bytes waiting for the reader below which reading from the connection starts again. */
  val LowWater: Long = 64 * 1024
