package rapier.flow

import rapier.ServerSentEvent

import java.nio.ByteBuffer
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong, AtomicReference}
import java.util.concurrent.{ConcurrentLinkedQueue, Flow, ScheduledFuture, TimeUnit}

/**
 * A stream of [[ServerSentEvent]]s as the bytes of a `text/event-stream` body: each event encoded as it comes, and,
 * while no event has gone out for `keepAliveNanos` (0: no keep-alive), a comment line that keeps the connection (and
 * the proxies on its way) from closing it as idle. One event is asked of `events` at a time, only once the body's
 * reader wants bytes, so the events are made no faster than the connection takes them; a comment waits for the reader
 * as an event does. Cancelling the body cancels `events` and stops the keep-alive.
 */
private[rapier] final class EventStream(events: Flow.Publisher[ServerSentEvent], keepAliveNanos: Long)
    extends Flow.Publisher[ByteBuffer]:
  private val subscribed = AtomicBoolean(false)

  def subscribe(s: Flow.Subscriber[? >: ByteBuffer]): Unit =
    if !subscribed.compareAndSet(false, true) then Demand.refuse(s, "an event stream is read by one subscriber")
    else
      val sub = Subscription(s)
      s.onSubscribe(sub)
      events.subscribe(sub)

  private final class Subscription(downstream: Flow.Subscriber[? >: ByteBuffer])
      extends DrainLoop,
        Flow.Subscription,
        Flow.Subscriber[ServerSentEvent]:
    private val demand = AtomicLong()
    // Encoded events and comments, ready for the reader: at most one event (one is asked for at a time) and a comment
    private val ready = ConcurrentLinkedQueue[ByteBuffer]()
    private val upstream = AtomicReference[Flow.Subscription | Null](null)
    private val asked = AtomicBoolean(false)
    private val sentSinceTick = AtomicBoolean(false)
    @volatile private var ended: Throwable | Null = null // the upstream's end: EventStream.Completed, or its failure
    @volatile private var done = false
    @volatile private var refused: Throwable | Null = null // a request that is not positive, told in the loop
    @volatile private var timer: ScheduledFuture[?] | Null = null

    def request(n: Long): Unit =
      if n <= 0 then
        refused = IllegalArgumentException(Demand.nonPositive(n, "chunks"))
        stop()
      else Demand.add(demand, n)
      drain()

    def cancel(): Unit =
      done = true
      stop()

    // The events and the keep-alive stopped
    private def stop(): Unit =
      stopTimer()
      val up = upstream.getAndSet(EventStream.Cancelled)
      if up != null && (up ne EventStream.Cancelled) then up.nn.cancel()

    def onSubscribe(s: Flow.Subscription): Unit =
      if !upstream.compareAndSet(null, s) then s.cancel() // cancelled already, or a second subscription
      else
        if keepAliveNanos > 0 then
          timer = EventStream.ticks.scheduleAtFixedRate(
            () => tick(),
            keepAliveNanos,
            keepAliveNanos,
            TimeUnit.NANOSECONDS
          )
        if done then stopTimer()
        drain()

    def onNext(event: ServerSentEvent): Unit =
      ready.add(ByteBuffer.wrap(event.encode))
      asked.set(false)
      drain()

    def onError(t: Throwable): Unit =
      ended = t
      drain()

    def onComplete(): Unit =
      ended = EventStream.Completed
      drain()

    // A comment, if nothing went out since the last tick and nothing waits
    private def tick(): Unit =
      if !sentSinceTick.getAndSet(false) && ready.isEmpty then
        ready.add(ByteBuffer.wrap(ServerSentEvent.KeepAlive))
        drain()

    protected def step(): Unit =
      if !done && refused != null then
        done = true
        downstream.onError(refused.nn)
      else if !done then
        while demand.get > 0 && !ready.isEmpty do
          val next = ready.poll()
          Demand.take(demand)
          sentSinceTick.set(true)
          downstream.onNext(next)
        val end = ended
        if end != null && ready.isEmpty then
          done = true
          stopTimer()
          if end eq EventStream.Completed then downstream.onComplete() else downstream.onError(end)
        else if end == null && demand.get > 0 && !asked.get then
          val up = upstream.get
          if up != null && (up ne EventStream.Cancelled) then
            asked.set(true)
            up.nn.request(1)

    private def stopTimer(): Unit =
      val t = timer
      if t != null then t.nn.cancel(false)

private[rapier] object EventStream:
  private object Completed extends Throwable(null, null, false, false)
  private object Cancelled extends Flow.Subscription:
    def request(n: Long): Unit = ()
    def cancel(): Unit = ()

  /** One daemon thread for every stream's keep-alive ticks: a tick only queues a comment. */
  private val ticks = DaemonScheduler("rapier-sse-keepalive")
