package rapier.vertx.internal

import io.netty.util.AsciiString

import java.util.concurrent.atomic.AtomicReference
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

class AsciiCacheTests extends munit.FunSuite:
  test("a string seen a second time comes back as bytes, the same ones from then on"):
    val cache = AsciiCache(16)
    val name = "Content-Type"
    assert(cache(name) eq name)
    val ascii = cache(name)
    assert(ascii.isInstanceOf[AsciiString], ascii.getClass)
    assertEquals(ascii.toString, name)
    assert(cache(name) eq ascii)

  test("a string made for one response is handed back as it is, however often its text recurs"):
    val cache = AsciiCache(16)
    for n <- 1 to 5 do
      val length = String(s"12$n".toCharArray)
      assert(cache(length) eq length)

  test("strings that share slots never come back with each other's text, from any number of threads"):
    val cache = AsciiCache(2)
    val strings = Vector.tabulate(32)(i => s"header-$i")
    val pool = Executors.newFixedThreadPool(4)
    val start = CountDownLatch(1)
    val wrong = AtomicReference[String | Null](null)
    try
      for t <- 0 until 4 do
        pool.execute { () =>
          start.await()
          var i = 0
          while i < 200_000 do
            val s = strings((i * 7 + t) % strings.size)
            val out = cache(s)
            if !out.toString.equals(s) then wrong.compareAndSet(null, s"$s came back as $out")
            i += 1
        }
      start.countDown()
      pool.shutdown()
      assert(pool.awaitTermination(60, TimeUnit.SECONDS))
      assertEquals(wrong.get, null)
    finally pool.shutdownNow()

  test("its size is a power of two"):
    intercept[IllegalArgumentException](AsciiCache(3))
