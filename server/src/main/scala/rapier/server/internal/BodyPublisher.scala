package rapier.server.internal

import rapier.flow.{Demand, DrainLoop}
import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.util.Objects
import java.util.concurrent.Flow
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}
import scala.util.control.NonFatal

/**
 * A request body as a `Flow.Publisher` of `ByteBuffer`s, pulled from the backend's [[BodySource]] only as fast as the
 * subscriber asks: one pull per chunk requested, never more than one outstanding. Each chunk is copied once, into a
 * buffer of its own that the subscriber may keep (the backend's is only valid until its next pull). A body is read
 * once: it takes one subscriber.
 */
private[rapier] final class BodyPublisher(source: BodySource) extends Flow.Publisher[ByteBuffer]:
  private val subscribed = AtomicBoolean()

  def subscribe(subscriber: Flow.Subscriber[? >: ByteBuffer]): Unit =
    Objects.requireNonNull(subscriber, "subscriber")
    if subscribed.compareAndSet(false, true) then BodySubscription(source, subscriber).start()
    else Demand.refuse(subscriber, "a request body is read once, and this one has a subscriber already")

/**
 * One subscriber's reading of a body. Every signal to the subscriber is sent from a step of the [[DrainLoop]], which
 * one thread at a time runs: requests and the source's answers may arrive on any thread.
 */
private final class BodySubscription(source: BodySource, subscriber: Flow.Subscriber[? >: ByteBuffer])
    extends DrainLoop,
      Flow.Subscription,
      BodyReceiver:
  private val demand = AtomicLong()
  private val released = AtomicBoolean()

  // Written by the source's answers and by the subscriber's calls, read by the drain loop.
  @volatile private var chunk: ByteBuffer | Null = null
  @volatile private var ended = false
  @volatile private var failure: Throwable | Null = null
  @volatile private var pulling = false
  @volatile private var cancelled = false
  // Set once a terminal signal is sent; only the drain loop touches it.
  private var terminated = false

  def start(): Unit =
    subscriber.onSubscribe(this)
    drain()

  def request(n: Long): Unit =
    if n <= 0 then
      failure = IllegalArgumentException(Demand.nonPositive(n, "chunks"))
      release()
    else
      Demand.add(demand, n)
    drain()

  def cancel(): Unit =
    cancelled = true
    release()

  def onChunk(bytes: ByteBuffer): Unit =
    val copy = ByteBuffer.allocate(bytes.remaining)
    copy.put(bytes).flip()
    chunk = copy
    pulling = false
    drain()

  def onEnd(): Unit =
    ended = true
    pulling = false
    drain()

  def onError(cause: Throwable): Unit =
    failure = cause
    pulling = false
    drain()

  /** Tells the backend the rest of the body is not wanted, once. */
  private def release(): Unit = if released.compareAndSet(false, true) then source.cancel()

  /** Sends what is ready, or asks the source for more when the subscriber wants it. */
  protected def step(): Unit =
    // Read first: an answer clears it last, so once it reads false, that answer's chunk, end or failure shows below.
    val idle = !pulling
    if !terminated && !cancelled then
      val f = failure
      if f != null then
        terminated = true
        release()
        subscriber.onError(f)
      else
        val c = chunk
        if c != null && demand.get > 0 then
          chunk = null
          Demand.take(demand)
          try subscriber.onNext(c)
          catch
            case NonFatal(_) =>
              // Reactive Streams §2.13: a subscriber that throws has cancelled its subscription.
              cancelled = true
              release()
        if chunk == null && !cancelled && idle then
          if ended then
            terminated = true
            subscriber.onComplete()
          else if demand.get > 0 then
            pulling = true
            // The source may answer at once: its answer's drain() then counts as missed work, done by this loop.
            source.pull(this)
