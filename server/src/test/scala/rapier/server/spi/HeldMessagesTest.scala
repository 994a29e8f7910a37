package rapier.server.spi

import java.nio.charset.StandardCharsets

class HeldMessagesTest extends munit.FunSuite:
  /** A relay that notes what it hears, and a timer run by hand. */
  private final class Heard extends WebSocketRelay:
    val events = scala.collection.mutable.ListBuffer.empty[String]
    var timer: (Long, Runnable) | Null = null
    var cancelled = false
    def start(channel: WebSocketChannel, loop: EventLoop): Unit = ()
    def received(bytes: Array[Byte], text: Boolean): Unit = events += new String(bytes, StandardCharsets.UTF_8)
    def written(): Unit = ()
    override def closing(): Unit = events += "closing"
    def ended(): Unit = events += "ended"
    val schedule: (Long, Runnable) => Runnable = (millis, task) =>
      timer = (millis, task)
      () => cancelled = true

  private def holding(relay: Heard, messages: String*): HeldMessages =
    val held = HeldMessages(relay)
    messages.foreach(m => held.add(m.getBytes(StandardCharsets.UTF_8), text = true))
    held

  test("messages held at the end go as they are asked for, the end at the ask after the last; the timer then goes"):
    val relay = Heard()
    val held = holding(relay, "one", "two")
    assertEquals(held.bytes, 6L)
    held.endAfter(relay.schedule)
    assertEquals(relay.events.toList, List("closing"))
    assertEquals(relay.timer.nn(0), HeldMessages.GraceMillis)
    while held.answers do held.serve()
    assertEquals(relay.events.toList, List("closing", "one", "two", "ended"))
    assert(relay.cancelled, "the grace's timer is cancelled once the relay heard of the end")
    assert(held.ended && !held.answers && held.bytes == 0L)

  test("with nothing held the end is heard at once, with no timer; a relay that stops asking hears it at its time"):
    val idle = Heard()
    HeldMessages(idle).endAfter(idle.schedule)
    assertEquals(idle.events.toList, List("ended"))
    assert(idle.timer == null)
    val slow = Heard()
    val held = holding(slow, "one", "two")
    held.endAfter(slow.schedule)
    held.serve()
    slow.timer.nn(1).run()
    held.add("late".getBytes(StandardCharsets.UTF_8), text = true)
    assertEquals(slow.events.toList, List("closing", "one", "ended"))
    assert(held.ended && !held.answers && held.bytes == 0L, "what was held is dropped")

  test("before the end a message held answers an ask; with none, the channel reads"):
    val relay = Heard()
    val held = HeldMessages(relay)
    assert(!held.answers)
    held.add("one".getBytes(StandardCharsets.UTF_8), text = true)
    assert(held.answers)
    held.serve()
    assert(!held.answers)
    held.end()
    held.end()
    assertEquals(relay.events.toList, List("one", "ended"))
