package rapier.server.internal

import rapier.server.spi.{BodyReceiver, BodySource, BodyTooLargeException}

import java.io.{ByteArrayOutputStream, IOException}
import java.nio.ByteBuffer
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{CompletableFuture, Executors, Flow, TimeUnit}

/** Bodies read on demand: as a publisher, as an input stream, and whole; with sources that answer at once or later. */
class BodyStreamsTest extends munit.FunSuite:
  private val pool = Executors.newFixedThreadPool(2)
  override def afterAll(): Unit = pool.shutdownNow()

  test("a response publisher's failure signalled between pulls reaches the next pull, never as the body's end"):
    val publisher: Flow.Publisher[ByteBuffer] = subscriber =>
      subscriber.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit =
          subscriber.onNext(ByteBuffer.wrap(Array[Byte](1, 2, 3)))
          subscriber.onError(IOException("the source broke"))
        def cancel(): Unit = ())
    val source = PublisherSource(publisher, -1L)
    val answers = List.newBuilder[String]
    val receiver = new BodyReceiver:
      def onChunk(chunk: ByteBuffer): Unit = answers += s"chunk ${chunk.remaining}"
      def onEnd(): Unit = answers += "end"
      def onError(cause: Throwable): Unit = answers += s"error ${cause.getMessage}"
    source.pull(receiver)
    source.pull(receiver)
    assertEquals(answers.result(), List("chunk 3", "error the source broke"))

  /**
   * A body of `size` bytes in chunks of `chunk`, answered on the caller's stack or on another thread, failing with
   * `failAt` bytes read when given. It checks that at most one pull is outstanding and reuses its chunk buffer, as a
   * backend may, so a reader that keeps a chunk past its next pull reads garbage.
   */
  private class Source(size: Int, chunk: Int, async: Boolean, failAt: Int = -1) extends BodySource:
    val pulls = AtomicInteger()
    val cancels = AtomicInteger()
    private val outstanding = AtomicInteger()
    @volatile var overlapping = false
    private var at = 0
    private val scratch = new Array[Byte](chunk)
    def declaredLength: Long = size.toLong
    def cancel(): Unit = cancels.incrementAndGet()
    def pull(receiver: BodyReceiver): Unit =
      pulls.incrementAndGet()
      if outstanding.incrementAndGet() > 1 then overlapping = true
      val answer: Runnable = () =>
        outstanding.decrementAndGet()
        if failAt >= 0 && at >= failAt then receiver.onError(BodyTooLargeException(failAt.toLong))
        else if at >= size then receiver.onEnd()
        else
          val n = math.min(chunk, size - at)
          var i = 0
          while i < n do
            scratch(i) = Source.byteAt(at + i)
            i += 1
          at += n
          receiver.onChunk(ByteBuffer.wrap(scratch, 0, n))
      if async then pool.execute(answer) else answer.run()

  private object Source:
    def byteAt(i: Int): Byte = (i * 31 + 7).toByte
    def expected(size: Int): Array[Byte] = Array.tabulate(size)(byteAt)

  /** A subscriber that asks for `batch` chunks at a time, from inside onNext, and collects what it gets. */
  private final class Collecting(batch: Long) extends Flow.Subscriber[ByteBuffer]:
    val out = ByteArrayOutputStream()
    val done = CompletableFuture[Array[Byte]]()
    val chunks = AtomicInteger()
    private var subscription: Flow.Subscription = null
    private var left = 0L
    def onSubscribe(s: Flow.Subscription): Unit =
      subscription = s
      left = batch
      s.request(batch)
    def onNext(b: ByteBuffer): Unit =
      chunks.incrementAndGet()
      val bytes = new Array[Byte](b.remaining)
      b.get(bytes)
      out.write(bytes)
      left -= 1
      if left == 0 then
        left = batch
        subscription.request(batch)
    def onError(t: Throwable): Unit = done.completeExceptionally(t)
    def onComplete(): Unit = done.complete(out.toByteArray)

  for async <- List(false, true); batch <- List(1L, 3L, Long.MaxValue) do
    test(s"publisher: every byte in order, one pull at a time (${if async then "later" else "at once"}, batch $batch)"):
      val source = Source(100000, 1000, async)
      val subscriber = Collecting(batch)
      BodyPublisher(source).subscribe(subscriber)
      assertEquals(subscriber.done.get(10, TimeUnit.SECONDS).toSeq, Source.expected(100000).toSeq)
      assertEquals((subscriber.chunks.get, source.pulls.get, source.overlapping), (100, 101, false))

  test("publisher: nothing is pulled before the subscriber asks, and no more than it asks for"):
    val source = Source(10, 1, async = false)
    var subscription: Flow.Subscription = null
    var received = 0
    BodyPublisher(source).subscribe(new Flow.Subscriber[ByteBuffer]:
      def onSubscribe(s: Flow.Subscription): Unit = subscription = s
      def onNext(b: ByteBuffer): Unit = received += 1
      def onError(t: Throwable): Unit = ()
      def onComplete(): Unit = ())
    assertEquals(source.pulls.get, 0)
    subscription.request(3)
    assertEquals((received, source.pulls.get), (3, 3))
    subscription.cancel()
    subscription.request(5)
    assertEquals((received, source.pulls.get, source.cancels.get), (3, 3, 1))

  test("publisher: a failure of the source reaches the subscriber, and a second subscriber is refused"):
    val publisher = BodyPublisher(Source(100, 10, async = true, failAt = 50))
    val subscriber = Collecting(1)
    publisher.subscribe(subscriber)
    val e = intercept[java.util.concurrent.ExecutionException](subscriber.done.get(10, TimeUnit.SECONDS))
    assert(e.getCause.isInstanceOf[BodyTooLargeException], e.getCause)
    val second = Collecting(1)
    publisher.subscribe(second)
    val refused = intercept[java.util.concurrent.ExecutionException](second.done.get(1, TimeUnit.SECONDS))
    assert(refused.getCause.getMessage.contains("read once"), refused.getCause.getMessage)

  test("publisher: a request of zero is an error to the subscriber, and releases the body"):
    val source = Source(100, 10, async = false)
    val errors = CompletableFuture[Throwable]()
    BodyPublisher(source).subscribe(new Flow.Subscriber[ByteBuffer]:
      def onSubscribe(s: Flow.Subscription): Unit = s.request(0)
      def onNext(b: ByteBuffer): Unit = ()
      def onError(t: Throwable): Unit = errors.complete(t)
      def onComplete(): Unit = ())
    assert(errors.get(1, TimeUnit.SECONDS).isInstanceOf[IllegalArgumentException])
    assertEquals((source.pulls.get, source.cancels.get), (0, 1))

  for async <- List(false, true) do
    test(s"input stream: every byte, in reads of any size (${if async then "later" else "at once"})"):
      val source = Source(100000, 1000, async)
      val in = BodyInputStream(source)
      val out = ByteArrayOutputStream()
      val buffer = new Array[Byte](777)
      assertEquals(in.read(), Source.byteAt(0) & 0xff)
      out.write(Source.byteAt(0).toInt)
      var n = in.read(buffer)
      while n >= 0 do
        out.write(buffer, 0, n)
        n = in.read(buffer)
      assertEquals(out.toByteArray.toSeq, Source.expected(100000).toSeq)
      assertEquals((in.read(), source.overlapping, source.cancels.get), (-1, false, 0))
      in.close()
      assertEquals(source.cancels.get, 0)

  test("input stream: closed early, it releases the body; a failure of the source is an IOException"):
    val source = Source(100, 10, async = true)
    val in = BodyInputStream(source)
    in.read(new Array[Byte](5))
    in.close()
    assertEquals(source.cancels.get, 1)
    intercept[IOException](in.read())
    val failing = BodyInputStream(Source(100, 10, async = true, failAt = 30))
    val e = intercept[IOException](failing.readAllBytes())
    assert(e.getCause.isInstanceOf[BodyTooLargeException], e)

  test("input stream: a reader interrupted while waiting gets an InterruptedIOException, and the body is released"):
    val cancels = AtomicInteger()
    val source = new BodySource:
      def declaredLength = -1L
      def pull(receiver: BodyReceiver): Unit = () // never answers
      def cancel(): Unit = cancels.incrementAndGet()
    val in = BodyInputStream(source)
    val failure = CompletableFuture[Throwable]()
    val reader = Thread { () =>
      try in.read()
      catch case e: Throwable => failure.complete(e)
      ()
    }
    reader.start()
    Thread.sleep(100)
    reader.interrupt()
    assert(failure.get(5, TimeUnit.SECONDS).isInstanceOf[java.io.InterruptedIOException])
    assertEquals(cancels.get, 1)

  test("whole: a body of unknown length grows its array; a declared one fills it exactly"):
    for declared <- List(true, false) do
      val source = new Source(50000, 333, async = true):
        override def declaredLength: Long = if declared then 50000L else -1L
      val result = CompletableFuture[Either[Throwable, Array[Byte]]]()
      val budget = rapier.server.spi.BodyBudget(1L << 20)
      BodyCollector(source, budget, r => result.complete(r.map(_.bytes))).start()
      assertEquals(result.get(10, TimeUnit.SECONDS).map(_.toSeq), Right(Source.expected(50000).toSeq))
      assertEquals(budget.held, 50000L, "the body's bytes, held until released")

  test("whole: a body the budget can't take as it grows fails with a 503, giving back what it held"):
    val source = Source(50000, 333, async = true)
    val result = CompletableFuture[Either[Throwable, BodyCollector.Collected]]()
    val budget = rapier.server.spi.BodyBudget(40000)
    BodyCollector(source, budget, r => result.complete(r)).start()
    result.get(10, TimeUnit.SECONDS) match
      case Left(e: rapier.server.spi.RequestBodyException) => assertEquals(e.refusal.status.code, 503)
      case other => fail(s"not refused: $other")
    assertEquals(budget.held, 0L)
    val fits = CompletableFuture[Either[Throwable, BodyCollector.Collected]]()
    BodyCollector(Source(30000, 333, async = true), budget, r => fits.complete(r)).start()
    val collected = fits.get(10, TimeUnit.SECONDS).toOption.get
    assertEquals(budget.held, 30000L)
    collected.release()
    collected.release()
    assertEquals(budget.held, 0L, "given back once")
