package rapier.json.jsoniter

import com.github.plokhotnyuk.jsoniter_scala.core.*
import rapier.flow.{Demand, DrainLoop}

import java.nio.ByteBuffer
import java.util.Objects
import java.util.concurrent.Flow
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}

/**
 * A stream of values written as JSON, one chunk per value: the value is asked of the logic's publisher only when the
 * server asks for a chunk, so values are produced as fast as the connection takes them. In an array, the first chunk
 * carries the `[`, each later one a `,` before its value, and a last chunk the `]` (`[]` for no values); as lines, each
 * value is followed by a newline. It takes one subscriber at a time.
 */
private[jsoniter] final class JsonBytesPublisher[T](values: Flow.Publisher[T], json: JsonValueCodec[T], array: Boolean)
    extends Flow.Publisher[ByteBuffer]:
  def subscribe(subscriber: Flow.Subscriber[? >: ByteBuffer]): Unit =
    Objects.requireNonNull(subscriber, "subscriber")
    JsonBytesSubscription(subscriber, json, array).start(values)

private final class JsonBytesSubscription[T](
    subscriber: Flow.Subscriber[? >: ByteBuffer],
    json: JsonValueCodec[T],
    array: Boolean
) extends DrainLoop,
      Flow.Subscription,
      Flow.Subscriber[T]:
  private val demand = AtomicLong()
  private val cancelled = AtomicBoolean()
  @volatile private var upstream: Flow.Subscription | Null = null
  @volatile private var value: ByteBuffer | Null = null
  @volatile private var requested = false
  @volatile private var ended = false
  @volatile private var failure: Throwable | Null = null
  private var first = true
  private var terminated = false

  def start(values: Flow.Publisher[T]): Unit =
    subscriber.onSubscribe(this)
    values.subscribe(this)

  def request(n: Long): Unit =
    if n <= 0 then
      failure = IllegalArgumentException(Demand.nonPositive(n, "chunks"))
      cancelUpstream()
    else
      Demand.add(demand, n)
    drain()

  def cancel(): Unit =
    cancelled.set(true)
    cancelUpstream()

  def onSubscribe(s: Flow.Subscription): Unit =
    upstream = s
    if cancelled.get then s.cancel() else drain()

  def onNext(v: T): Unit =
    try value = encode(v)
    catch
      case scala.util.control.NonFatal(e) =>
        failure = e
        cancelUpstream()
    requested = false
    drain()

  def onError(e: Throwable): Unit =
    failure = e
    drain()

  def onComplete(): Unit =
    ended = true
    drain()

  /** The value's chunk: its JSON with the separator before it (array) or the newline after it (lines). */
  private def encode(v: T): ByteBuffer =
    val bytes = writeToArray(v)(using json)
    val chunk = ByteBuffer.allocate(bytes.length + 1)
    if array then
      chunk.put(if first then '['.toByte else ','.toByte).put(bytes)
      first = false
    else chunk.put(bytes).put('\n'.toByte)
    chunk.flip()

  private def cancelUpstream(): Unit =
    val s = upstream
    if s != null then s.nn.cancel()

  protected def step(): Unit =
    if !terminated && !cancelled.get then
      val f = failure
      val v = value
      if f != null then
        terminated = true
        subscriber.onError(f)
      else if v != null && demand.get > 0 then
        value = null
        Demand.take(demand)
        subscriber.onNext(v)
      if !terminated && value == null && demand.get > 0 then
        if ended then
          terminated = true
          if array then
            Demand.take(demand)
            subscriber.onNext(ByteBuffer.wrap((if first then "[]" else "]").getBytes))
          subscriber.onComplete()
        else if !requested && upstream != null then
          requested = true
          upstream.nn.request(1)
