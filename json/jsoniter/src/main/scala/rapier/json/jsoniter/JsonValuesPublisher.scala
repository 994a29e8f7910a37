package rapier.json.jsoniter

import com.github.plokhotnyuk.jsoniter_scala.core.*
import rapier.flow.{Demand, DrainLoop}
import rapier.{InvalidStreamException, Schema}

import java.nio.ByteBuffer
import java.util.Objects
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}
import java.util.concurrent.{ConcurrentLinkedQueue, Flow}

/**
 * The values of a JSON stream, parsed from its body's chunks only as the subscriber asks for them: one chunk is
 * requested from the body at a time, and only while the subscriber wants values that are not parsed yet. A chunk is
 * split into values ([[JsonSplitter]]) as it arrives, each parsed by jsoniter-scala straight from the bytes and checked
 * by the element schema. It takes one subscriber.
 */
private[jsoniter] final class JsonValuesPublisher[T](
    body: Flow.Publisher[ByteBuffer],
    json: JsonValueCodec[T],
    element: Schema[T],
    array: Boolean,
    maxElementSize: Int
) extends Flow.Publisher[T]:
  private val subscribed = AtomicBoolean()

  def subscribe(subscriber: Flow.Subscriber[? >: T]): Unit =
    Objects.requireNonNull(subscriber, "subscriber")
    if subscribed.compareAndSet(false, true) then
      JsonValuesSubscription(subscriber, json, element, JsonSplitter(array, maxElementSize)).start(body)
    else
      subscriber.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit = ()
        def cancel(): Unit = ())
      subscriber.onError(IllegalStateException("a request body is read once, and this one has a subscriber already"))

/**
 * One subscriber's reading: a subscriber to the body's chunks, and the subscription its own subscriber holds. Every
 * signal to that subscriber comes from the drain loop, which one thread at a time runs.
 */
private final class JsonValuesSubscription[T](
    subscriber: Flow.Subscriber[? >: T],
    json: JsonValueCodec[T],
    element: Schema[T],
    splitter: JsonSplitter
) extends DrainLoop,
      Flow.Subscription,
      Flow.Subscriber[ByteBuffer]:
  private val values = ConcurrentLinkedQueue[T]()
  private val demand = AtomicLong()
  @volatile private var upstream: Flow.Subscription | Null = null
  @volatile private var requested = false
  @volatile private var ended = false
  @volatile private var failure: Throwable | Null = null
  @volatile private var cancelled = false
  private var terminated = false
  private var index = 0L

  // The splitter's callback, made once: parses a value, checks it, queues it; the first bad one fails the stream.
  private val parse: (Array[Byte], Int, Int) => Unit = (bytes, from, to) =>
    if failure == null then
      try
        val v = readFromSubArray(bytes, from, to, JsoniterCodec.readerConfig)(using json)
        val errors = if v == null then Nil else element.check(v)
        if v == null then fail(s"element $index of the stream is null")
        else if errors.nonEmpty then fail(s"element $index of the stream is invalid: ${errors.mkString("; ")}")
        else values.add(v)
      catch
        case e: JsonReaderException =>
          fail(s"element $index of the stream ${JsoniterCodec.malformed(e, bytes, from, to, element).describe}")
      index += 1

  def start(body: Flow.Publisher[ByteBuffer]): Unit =
    subscriber.onSubscribe(this)
    body.subscribe(this)

  // Flow.Subscription, for the values' subscriber.
  def request(n: Long): Unit =
    if n <= 0 then fail(Demand.nonPositive(n, "values"), client = false)
    else
      Demand.add(demand, n)
    drain()

  def cancel(): Unit =
    cancelled = true
    val s = upstream
    if s != null then s.nn.cancel()

  // Flow.Subscriber, of the body's chunks.
  def onSubscribe(s: Flow.Subscription): Unit =
    upstream = s
    if cancelled then s.cancel() else drain()

  def onNext(chunk: ByteBuffer): Unit =
    val error = splitter.feed(chunk, parse)
    if error != null then fail(error.nn)
    requested = false
    drain()

  def onError(e: Throwable): Unit =
    if failure == null then failure = e
    drain()

  def onComplete(): Unit =
    val error = splitter.end(parse)
    if error != null then fail(error.nn)
    ended = true
    drain()

  private def fail(message: String, client: Boolean = true): Unit =
    if failure == null then
      failure = if client then InvalidStreamException(message) else IllegalArgumentException(message)
      val s = upstream
      if s != null then s.nn.cancel()

  protected def step(): Unit =
    if !terminated && !cancelled then
      while demand.get > 0 && !values.isEmpty do
        Demand.take(demand)
        subscriber.onNext(values.poll())
      if values.isEmpty then
        val f = failure
        if f != null then
          terminated = true
          subscriber.onError(f)
        else if ended then
          terminated = true
          subscriber.onComplete()
        else if demand.get > 0 && !requested && upstream != null then
          requested = true
          upstream.nn.request(1)
