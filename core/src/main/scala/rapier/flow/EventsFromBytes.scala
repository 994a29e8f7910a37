package rapier.flow

import rapier.ServerSentEvent

import java.nio.ByteBuffer
import java.util.concurrent.Flow
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}

/**
 * The events of a `text/event-stream` read from its bytes ([[EventParser]]): a chunk is asked for only when the
 * subscriber wants an event and none is ready, so the stream is read at the subscriber's pace. Subscribed to once.
 */
private[rapier] final class EventsFromBytes(bytes: Flow.Publisher[ByteBuffer]) extends Flow.Publisher[ServerSentEvent]:
  private val subscribed = AtomicBoolean(false)

  def subscribe(subscriber: Flow.Subscriber[? >: ServerSentEvent]): Unit =
    if subscribed.compareAndSet(false, true) then bytes.subscribe(Relay(subscriber))
    else Demand.refuse(subscriber, "an event stream is read once")

  private final class Relay(downstream: Flow.Subscriber[? >: ServerSentEvent])
      extends DrainLoop,
        Flow.Subscriber[ByteBuffer],
        Flow.Subscription:
    private val parser = EventParser()
    private val ready = java.util.concurrent.ConcurrentLinkedQueue[ServerSentEvent]()
    private val demand = AtomicLong()
    private val asked = AtomicBoolean(false)
    @volatile private var upstream: Flow.Subscription | Null = null
    @volatile private var ended: Throwable | Null = null // EventsFromBytes.Completed once complete
    @volatile private var cancelled = false
    private var done = false // only in step()

    def onSubscribe(s: Flow.Subscription): Unit =
      upstream = s
      downstream.onSubscribe(this)

    def onNext(chunk: ByteBuffer): Unit =
      try parser.feed(chunk, e => ready.add(e))
      catch
        case e: IllegalStateException =>
          upstream.nn.cancel()
          ended = e
      asked.set(false)
      drain()

    def onError(t: Throwable): Unit =
      ended = t
      drain()

    def onComplete(): Unit =
      ended = EventsFromBytes.Completed
      drain()

    def request(n: Long): Unit =
      if n <= 0 then
        ended = IllegalArgumentException(Demand.nonPositive(n, "events"))
        cancel()
      else Demand.add(demand, n)
      drain()

    def cancel(): Unit =
      cancelled = true
      val up = upstream
      if up != null then up.nn.cancel()

    protected def step(): Unit =
      if !done then
        if cancelled && ended == null then done = true
        else
          while demand.get > 0 && !ready.isEmpty do
            downstream.onNext(ready.poll())
            if demand.get != Long.MaxValue then demand.decrementAndGet()
          val end = ended
          if end != null && ready.isEmpty then
            done = true
            if end eq EventsFromBytes.Completed then downstream.onComplete() else downstream.onError(end)
          else if end == null && demand.get > 0 && ready.isEmpty && !asked.getAndSet(true) then upstream.nn.request(1)

private[rapier] object EventsFromBytes:
  private object Completed extends Throwable(null, null, false, false)
