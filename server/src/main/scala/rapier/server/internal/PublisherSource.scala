package rapier.server.internal

import rapier.server.spi.{BodyReceiver, BodySource}

import java.nio.ByteBuffer
import java.util.concurrent.Flow
import java.util.concurrent.atomic.AtomicReference

/**
 * A response body from a `Flow.Publisher`, as the backend pulls it: subscribed at the first pull, then one chunk
 * requested per pull, so the publisher produces only as fast as the connection takes its chunks. The chunks are the
 * publisher's own buffers, written without a copy.
 */
private[server] final class PublisherSource(publisher: Flow.Publisher[? <: ByteBuffer], val declaredLength: Long)
    extends BodySource,
      Flow.Subscriber[ByteBuffer]:
  // The pull waiting for an answer; one at a time.
  private val waiting = AtomicReference[BodyReceiver | Null]()
  @volatile private var subscription: Flow.Subscription | Null = null
  @volatile private var subscribed = false
  @volatile private var cancelled = false
  @volatile private var finished = false
  // A failure signalled while no pull waited: the next pull gets it, never an end that would pass a cut body as whole.
  @volatile private var failure: Throwable | Null = null

  def pull(receiver: BodyReceiver): Unit =
    if failure != null then receiver.onError(failure.nn)
    else if finished then receiver.onEnd()
    else
      waiting.set(receiver)
      if !subscribed then
        subscribed = true
        publisher.subscribe(this)
      else subscription.nn.request(1)

  def cancel(): Unit =
    if !cancelled then
      cancelled = true
      val s = subscription
      if s != null then s.nn.cancel()

  def onSubscribe(s: Flow.Subscription): Unit =
    if subscription != null then s.cancel() // Reactive Streams §2.5: one subscription at a time
    else
      subscription = s
      if cancelled then s.cancel() else s.request(1)

  def onNext(chunk: ByteBuffer): Unit =
    val receiver = waiting.getAndSet(null)
    if receiver == null then
      cancel()
      throw IllegalStateException("the response body's publisher sent a chunk nobody asked for")
    // An empty chunk is skipped: a receiver gets at least one byte.
    else if !chunk.hasRemaining then
      waiting.set(receiver)
      subscription.nn.request(1)
    else receiver.nn.onChunk(chunk)

  def onError(e: Throwable): Unit =
    failure = e
    finished = true
    val receiver = waiting.getAndSet(null)
    if receiver != null then receiver.nn.onError(e)

  def onComplete(): Unit =
    finished = true
    val receiver = waiting.getAndSet(null)
    if receiver != null then receiver.nn.onEnd()
