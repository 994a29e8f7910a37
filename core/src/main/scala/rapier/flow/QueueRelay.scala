package rapier.flow

import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}
import java.util.concurrent.{ConcurrentLinkedQueue, Flow}

/**
 * The subscription side of a publisher that turns what its source gives into items of its own: items are queued as
 * they are made ([[offer]]), handed to the subscriber as it asks for them, and the source asked for more ([[askMore]])
 * only when the subscriber wants an item and none is queued, so that the source is read at the subscriber's pace. The
 * end ([[end]]) is signalled once the queue is empty. What the client's event streams and WebSockets share.
 */
private[rapier] abstract class QueueRelay[T] extends DrainLoop, Flow.Subscription:
  private val ready = ConcurrentLinkedQueue[T]()
  private val demand = AtomicLong()
  private val asked = AtomicBoolean(false)
  @volatile private var ended: Throwable | Null = null // QueueRelay.Completed once complete
  @volatile private var cancelled = false
  private var done = false // only in step()

  /** Who the items go to; null until subscribed. */
  protected def downstream: Flow.Subscriber[? >: T] | Null

  /** Asks the source for what makes the next item. */
  protected def askMore(): Unit

  /** The subscriber cancelled: the source is to stop. */
  protected def stopSource(): Unit

  /** Queues an item the source made; the source is asked again once the subscriber wants more. */
  protected final def offer(item: T): Unit =
    ready.add(item)
    asked.set(false)
    drain()

  /** The source ended: with `failure`, or normally when null. The first end counts. */
  protected final def end(failure: Throwable | Null): Unit =
    if ended == null then ended = if failure == null then QueueRelay.Completed else failure
    drain()

  def request(n: Long): Unit =
    if n <= 0 then
      if ended == null then ended = IllegalArgumentException(Demand.nonPositive(n, "items"))
      cancel()
    else Demand.add(demand, n)
    drain()

  def cancel(): Unit =
    cancelled = true
    stopSource()

  protected final def step(): Unit =
    val d = downstream
    if !done && d != null then
      if cancelled && ended == null then done = true
      else
        while demand.get > 0 && !ready.isEmpty do
          Demand.take(demand)
          d.nn.onNext(ready.poll())
        val end = ended
        if end != null && ready.isEmpty then
          done = true
          if end eq QueueRelay.Completed then d.nn.onComplete() else d.nn.onError(end)
        else if end == null && demand.get > 0 && ready.isEmpty && !asked.getAndSet(true) then askMore()

private object QueueRelay:
  private object Completed extends Throwable(null, null, false, false)
