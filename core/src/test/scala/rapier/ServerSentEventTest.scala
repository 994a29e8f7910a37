package rapier

import java.nio.charset.StandardCharsets

class ServerSentEventTest extends munit.FunSuite:
  private def text(e: ServerSentEvent) = new String(e.encode, StandardCharsets.UTF_8)

  test("data is split at every kind of line break, each line a data field of its own"):
    assertEquals(text(ServerSentEvent.data("a\r\nb\rc\nd")), "data: a\ndata: b\ndata: c\ndata: d\n\n")
    assertEquals(text(ServerSentEvent.data("end\n")), "data: end\ndata: \n\n")

  test("text past ASCII is UTF-8, an empty data is one empty field, and a CR at the end ends a line"):
    assertEquals(text(ServerSentEvent.data("héllo ✓ 𝄞")), "data: héllo ✓ 𝄞\n\n")
    assertEquals(text(ServerSentEvent.data("")), "data: \n\n")
    assertEquals(text(ServerSentEvent.data("a\r")), "data: a\ndata: \n\n")
    assertEquals(text(ServerSentEvent.data("\n\r\n")), "data: \ndata: \ndata: \n\n")
    val long = "x" * 10000 + "\n" + "y" * 5000
    assertEquals(
      text(ServerSentEvent(data = Some(long), id = Some("7"))),
      s"id: 7\ndata: ${"x" * 10000}\ndata: ${"y" * 5000}\n\n"
    )

  test("fields are written in order, and an event of no field is a blank line"):
    val e = ServerSentEvent(data = Some("x"), event = Some("tick"), id = Some("42"), retry = Some(1000))
    assertEquals(text(e), "event: tick\nid: 42\nretry: 1000\ndata: x\n\n")
    assertEquals(text(ServerSentEvent()), "\n")

  test("a line break in an event type or id, a NUL in an id, a negative retry are refused"):
    intercept[IllegalArgumentException](ServerSentEvent(event = Some("a\nb")))
    intercept[IllegalArgumentException](ServerSentEvent(id = Some("a\rb")))
    intercept[IllegalArgumentException](ServerSentEvent(id = Some("a\u0000b")))
    intercept[IllegalArgumentException](ServerSentEvent(retry = Some(-1)))

  test("an event stream asked for no chunks fails its subscriber and cancels the events (Reactive Streams §3.9)"):
    val cancelled = java.util.concurrent.CountDownLatch(1)
    val events: java.util.concurrent.Flow.Publisher[ServerSentEvent] = s =>
      s.onSubscribe(new java.util.concurrent.Flow.Subscription:
        def request(n: Long): Unit = ()
        def cancel(): Unit = cancelled.countDown())
    val failure = java.util.concurrent.CompletableFuture[Throwable]()
    rapier.flow
      .EventStream(events, 1_000_000_000L)
      .subscribe(new java.util.concurrent.Flow.Subscriber[java.nio.ByteBuffer]:
        def onSubscribe(s: java.util.concurrent.Flow.Subscription): Unit = s.request(0)
        def onNext(b: java.nio.ByteBuffer): Unit = failure.complete(AssertionError("a chunk"))
        def onError(t: Throwable): Unit = failure.complete(t)
        def onComplete(): Unit = failure.complete(AssertionError("completed")))
    val told = failure.get(5, java.util.concurrent.TimeUnit.SECONDS)
    assert(told.isInstanceOf[IllegalArgumentException] && told.getMessage.contains("§3.9"), told.toString)
    assert(cancelled.await(5, java.util.concurrent.TimeUnit.SECONDS), "the events were cancelled")
