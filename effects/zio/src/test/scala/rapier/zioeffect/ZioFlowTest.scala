package rapier.zioeffect

import zio.stream.ZStream
import zio.{Runtime, Unsafe, ZIO}

import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger, AtomicLong}
import java.util.concurrent.{CountDownLatch, Flow, LinkedBlockingQueue, TimeUnit}

/** The bridges a client's ZIO WebSocket pipe is made of: demand, ends and cancellation, both ways. */
class ZioFlowTest extends munit.FunSuite:
  private val runtime = Runtime.default

  private def run[A](z: ZIO[Any, Throwable, A]): Either[Throwable, A] =
    Unsafe.unsafe(implicit u => runtime.unsafe.run(z.either).getOrThrowFiberFailure())

  /** A subscriber that records what it is sent: elements, then "complete" or the failure's message. */
  private final class Recorder extends Flow.Subscriber[Int]:
    val events = LinkedBlockingQueue[Any]()
    @volatile var subscription: Flow.Subscription | Null = null
    def onSubscribe(s: Flow.Subscription): Unit = subscription = s
    def onNext(n: Int): Unit = events.add(n)
    def onError(e: Throwable): Unit = events.add(e.getMessage)
    def onComplete(): Unit = events.add("complete")
    def next(): Any = Option(events.poll(10, TimeUnit.SECONDS)).getOrElse(fail("nothing within 10 s"))

  test("a published stream is pulled only as its subscriber asks; a second subscriber is refused"):
    val pulled = AtomicInteger()
    val stream = ZStream.repeatZIO(ZIO.succeed(pulled.incrementAndGet())).take(5)
    val publisher = ZioFlow.StreamPublisher(stream, runtime)
    val r = Recorder()
    publisher.subscribe(r)
    r.subscription.nn.request(2)
    assertEquals(List(r.next(), r.next()), List(1, 2))
    Thread.sleep(100)
    assertEquals(pulled.get, 2, "an element pulled before it was asked for")
    r.subscription.nn.request(10)
    assertEquals(List.fill(4)(r.next()), List(3, 4, 5, "complete"))
    val second = Recorder()
    publisher.subscribe(second)
    assert(second.next().toString.contains("published once"))

  test("stopping a published stream interrupts it, its finalizers run"):
    val finalized = CountDownLatch(1)
    val stream = (ZStream(1) ++ ZStream.never).ensuring(ZIO.succeed(finalized.countDown()))
    val publisher = ZioFlow.StreamPublisher(stream, runtime)
    val r = Recorder()
    publisher.subscribe(r)
    r.subscription.nn.request(5)
    assertEquals(r.next(), 1)
    publisher.stop()
    assert(finalized.await(10, TimeUnit.SECONDS), "the stream's finalizer never ran")

  test("a publisher read as a stream: one element asked for at each pull, cancelled once the stream ends"):
    val requested = AtomicLong()
    val cancelled = AtomicBoolean(false)
    // Sends each element from within request, as a synchronous publisher may
    val publisher: Flow.Publisher[Int] = subscriber =>
      subscriber.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit =
          val from = requested.getAndAdd(n)
          (from until from + n).foreach(i => subscriber.onNext(i.toInt))
        def cancel(): Unit = cancelled.set(true))
    assertEquals(run(ZioFlow.stream(publisher).take(3).runCollect).map(_.toList), Right(List(0, 1, 2)))
    assertEquals(requested.get, 3L)
    assert(cancelled.get, "the subscription was not cancelled when the stream ended")

  test("a publisher's failure fails the stream; its completion ends it"):
    val failing: Flow.Publisher[Int] = subscriber =>
      subscriber.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit = subscriber.onError(IllegalStateException("broken"))
        def cancel(): Unit = ())
    val empty: Flow.Publisher[Int] = subscriber =>
      subscriber.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit = subscriber.onComplete()
        def cancel(): Unit = ())
    assertEquals(run(ZioFlow.stream(failing).runCollect).left.map(_.getMessage), Left("broken"))
    assertEquals(run(ZioFlow.stream(empty).runCollect).map(_.toList), Right(Nil))
