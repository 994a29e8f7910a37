package rapier.zioeffect

import rapier.flow.Demand
import zio.stream.ZStream
import zio.{Chunk, Fiber, IO, Runtime, Unsafe, ZIO}

import java.util.concurrent.Flow
import java.util.concurrent.atomic.{AtomicLong, AtomicReference}

/** ZIO streams to and from `Flow.Publisher`s, one element at a time: what a client's WebSocket pipe is made of. */
private[zioeffect] object ZioFlow:
  /**
   * `stream` as a publisher for one subscriber: run as a fiber of `runtime` once subscribed, an element pulled only
   * when one is asked for. Cancelling, or [[stop]], interrupts the fiber, running the stream's finalizers.
   */
  final class StreamPublisher[A](stream: ZStream[Any, Throwable, A], runtime: Runtime[Any]) extends Flow.Publisher[A]:
    private val current = AtomicReference[StreamSubscription | Null](null)
    @volatile private var stopped = false

    def subscribe(subscriber: Flow.Subscriber[? >: A]): Unit =
      val subscription = StreamSubscription(subscriber, runtime)
      if !current.compareAndSet(null, subscription) then Demand.refuse(subscriber, "a stream is published once")
      else
        subscriber.onSubscribe(subscription)
        // Demand first, then the element: from the chunk pulled last, or from a new pull
        def sending(pull: IO[Option[Throwable], Chunk[A]], chunk: Chunk[A], i: Int): IO[Option[Throwable], Nothing] =
          if i < chunk.size then
            ZIO.succeed(subscriber.onNext(chunk(i))) *> subscription.asked *> sending(pull, chunk, i + 1)
          else pull.flatMap(sending(pull, _, 0))
        val run = ZIO
          .scoped(stream.toPull.flatMap(pull => subscription.asked *> sending(pull, Chunk.empty, 0)))
          .catchAll {
            case None => ZIO.succeed(subscriber.onComplete())
            case Some(e) => ZIO.succeed(subscriber.onError(e))
          }
        subscription.started(Unsafe.unsafe(implicit u => runtime.unsafe.fork(run)))
        if stopped then subscription.cancel()

    /** Stops the stream, whether or not it was subscribed to. */
    def stop(): Unit =
      stopped = true
      val subscription = current.get
      if subscription != null then subscription.nn.cancel()

  /** `publisher`'s elements as a stream: one asked for each time the stream is pulled; cancelled when it ends. */
  def stream[A](publisher: Flow.Publisher[A]): ZStream[Any, Throwable, A] =
    ZStream.unwrapScoped(
      ZIO
        .acquireRelease(ZIO.succeed { val s = PullSubscriber[A](); publisher.subscribe(s); s })(s =>
          ZIO.succeed(s.cancel())
        )
        .map(s => ZStream.repeatZIOOption(s.next))
    )

  /** A subscriber's demand on a stream's fiber, which waits for it before each element. */
  private final class StreamSubscription(subscriber: Flow.Subscriber[?], runtime: Runtime[Any])
      extends Flow.Subscription:
    private val demand = AtomicLong()
    private val waiting = AtomicReference[(IO[Nothing, Unit] => Unit) | Null](null)
    @volatile private var fiber: Fiber.Runtime[?, ?] | Null = null
    @volatile private var cancelled = false

    def started(f: Fiber.Runtime[?, ?]): Unit =
      fiber = f
      if cancelled then stop()

    /** Waits until an element is asked for, and counts it sent. */
    val asked: IO[Nothing, Unit] = ZIO.async[Any, Nothing, Unit] { resume =>
      waiting.set(resume)
      wake()
    }

    def request(n: Long): Unit =
      if n <= 0 then
        cancel()
        subscriber.onError(IllegalArgumentException(Demand.nonPositive(n, "elements")))
      else
        Demand.add(demand, n)
        wake()

    def cancel(): Unit =
      cancelled = true
      stop()

    // The one waiting resumes once, whichever of request and asked sees both the waiter and the demand
    private def wake(): Unit =
      if demand.get > 0 then
        val resume = waiting.getAndSet(null)
        if resume != null then
          Demand.take(demand)
          resume.nn(ZIO.unit)

    private def stop(): Unit =
      val f = fiber
      if f != null then Unsafe.unsafe(implicit u => runtime.unsafe.fork(f.nn.interrupt))

  /** A subscription pulled one element at a time by a stream; what arrives unasked for is a broken publisher. */
  private final class PullSubscriber[A] extends Flow.Subscriber[A]:
    private var subscription: Flow.Subscription | Null = null
    private var waiting: (IO[Option[Throwable], A] => Unit) | Null = null
    private var ended: Option[Throwable] | Null = null // None once completed
    private var cancelled = false

    /** The next element, None at the end, or the publisher's failure. */
    val next: IO[Option[Throwable], A] = ZIO.async[Any, Option[Throwable], A] { resume =>
      val (ask, end) = synchronized[(Flow.Subscription | Null, Option[Throwable] | Null)] {
        if ended != null then (null, ended)
        else
          waiting = resume
          (subscription, null)
      }
      if end != null then resume(ZIO.fail(end.nn))
      else if ask != null then ask.nn.request(1) // otherwise asked for once subscribed
    }

    def onSubscribe(s: Flow.Subscription): Unit =
      // A second subscription, or one after the stream ended, is cancelled (Reactive Streams §2.5)
      val (taken, ask) = synchronized {
        if subscription != null || cancelled then (false, false)
        else
          subscription = s
          (true, waiting != null)
      }
      if !taken then s.cancel() else if ask then s.request(1)

    def onNext(a: A): Unit = resumed(ZIO.succeed(a))
    def onError(e: Throwable): Unit = finish(Some(e))
    def onComplete(): Unit = finish(None)

    def cancel(): Unit =
      val s = synchronized { cancelled = true; subscription }
      if s != null then s.nn.cancel()

    private def finish(end: Option[Throwable]): Unit =
      synchronized { if ended == null then ended = end }
      resumed(ZIO.fail(end))

    private def resumed(result: IO[Option[Throwable], A]): Unit =
      val resume = synchronized { val r = waiting; waiting = null; r }
      if resume != null then resume.nn(result)
