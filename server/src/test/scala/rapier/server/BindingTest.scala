package rapier.server

import java.net.InetSocketAddress
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{CountDownLatch, TimeUnit}

class BindingTest extends munit.FunSuite:
  /** A binding whose shutdown takes `millis` and counts its calls. */
  private final class Counting(millis: Long) extends Binding:
    val shutdowns = AtomicInteger()
    def address = InetSocketAddress("localhost", 1234)
    def bodyBytesHeld = 0L
    protected def shutdown(): Unit =
      shutdowns.incrementAndGet()
      Thread.sleep(millis)

  test("stop shuts down once; a second stop, from another thread, returns only once the first is done"):
    val b = Counting(200)
    val first = Thread(() => b.stop())
    first.start()
    Thread.sleep(50)
    val started = System.nanoTime()
    b.stop()
    assert(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) >= 100, "the second stop waited for the first")
    first.join()
    b.stop()
    assertEquals(b.shutdowns.get, 1)

  test("awaitStop blocks until the server is stopped"):
    val b = Counting(0)
    val returned = CountDownLatch(1)
    val waiter = Thread { () =>
      b.awaitStop()
      returned.countDown()
    }
    waiter.start()
    assert(!returned.await(100, TimeUnit.MILLISECONDS), "awaitStop returned before stop")
    b.stop()
    assert(returned.await(5, TimeUnit.SECONDS), "awaitStop returned after stop")
    assertEquals((b.port, b.hostName), (1234, "localhost"))

  test("shared options refuse limits out of range, naming them"):
    def message(f: => Any) = intercept[IllegalArgumentException](f).getMessage
    assert(message(BackendOptions(port = 70000)).contains("between 0 and 65535"))
    assert(message(BackendOptions(maxBodySize = -1)).contains("maxBodySize"))
    assert(message(BackendOptions(maxHeaderSize = 0)).contains("header limits"))
    assert(message(BackendOptions(maxConnections = 0)).contains("maxConnections"))
    assert(message(BackendOptions(idleTimeout = scala.concurrent.duration.Duration.Zero)).contains("timeouts"))

  test("a timeout is longer than zero, or Duration.Inf for none"):
    import scala.concurrent.duration.*
    def refused(d: Duration) = intercept[IllegalArgumentException](BackendOptions(bodyReadTimeout = d)).getMessage
    List(Duration.Zero, -1.second, Duration.MinusInf, Duration.Undefined).foreach(d =>
      assert(refused(d).contains("timeouts"), d)
    )
    List(1.nanosecond, 60.seconds, Duration.Inf).foreach(d =>
      assertEquals(BackendOptions(idleTimeout = d).idleTimeout, d)
    )
    intercept[IllegalArgumentException](BackendOptions(shutdownTimeout = -1.milli))
    assertEquals(BackendOptions(shutdownTimeout = Duration.Zero).shutdownTimeout, Duration.Zero)
