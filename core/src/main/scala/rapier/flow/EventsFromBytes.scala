package rapier.flow

import rapier.ServerSentEvent

import java.nio.ByteBuffer
import java.util.concurrent.Flow
import java.util.concurrent.atomic.AtomicBoolean

/**
 * The events of a `text/event-stream` read from its bytes ([[EventParser]]): a chunk is asked for only when the
 * subscriber wants an event and none is ready, so the stream is read at the subscriber's pace. Subscribed to once.
 */
private[rapier] final class EventsFromBytes(bytes: Flow.Publisher[ByteBuffer]) extends Flow.Publisher[ServerSentEvent]:
  private val subscribed = AtomicBoolean(false)

  def subscribe(subscriber: Flow.Subscriber[? >: ServerSentEvent]): Unit =
    if subscribed.compareAndSet(false, true) then bytes.subscribe(Relay(subscriber))
    else Demand.refuse(subscriber, "an event stream is read once")

  private final class Relay(subscriber: Flow.Subscriber[? >: ServerSentEvent])
      extends QueueRelay[ServerSentEvent],
        Flow.Subscriber[ByteBuffer]:
    private val parser = EventParser()
    @volatile private var upstream: Flow.Subscription | Null = null

    protected def downstream: Flow.Subscriber[? >: ServerSentEvent] | Null = subscriber
    protected def askMore(): Unit = upstream.nn.request(1)
    protected def stopSource(): Unit = if upstream != null then upstream.nn.cancel()

    def onSubscribe(s: Flow.Subscription): Unit =
      upstream = s
      subscriber.onSubscribe(this)

    def onNext(chunk: ByteBuffer): Unit =
      var events = 0
      val failed =
        try
          parser.feed(
            chunk,
            e =>
              events += 1; offer(e)
          )
          false
        catch
          case e: IllegalStateException =>
            upstream.nn.cancel()
            end(e)
            true
      // A chunk that completed no event was asked for with demand still unmet: the next is asked for at once
      if events == 0 && !failed then askMore()

    def onError(t: Throwable): Unit = end(t)
    def onComplete(): Unit = end(null)
