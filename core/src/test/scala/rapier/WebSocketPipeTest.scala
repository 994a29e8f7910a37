package rapier

import java.util.concurrent.Flow

class WebSocketPipeTest extends munit.FunSuite:
  /** A publisher of the given messages that records what its subscriber asked for, and a cancel. */
  final class Source(messages: String*) extends Flow.Publisher[String]:
    var requested = 0L
    var cancelled = false
    def subscribe(s: Flow.Subscriber[? >: String]): Unit =
      var left = messages.toList
      s.onSubscribe(new Flow.Subscription:
        def request(n: Long): Unit =
          requested += n
          var k = n
          while k > 0 && left.nonEmpty && !cancelled do
            val m = left.head
            left = left.tail
            s.onNext(m)
            k -= 1
          if left.isEmpty && !cancelled then s.onComplete()
        def cancel(): Unit = cancelled = true)

  final class Sink extends Flow.Subscriber[Int]:
    val seen = List.newBuilder[String]
    var subscription: Flow.Subscription = null
    def onSubscribe(s: Flow.Subscription): Unit = subscription = s
    def onNext(n: Int): Unit = seen += n.toString
    def onError(t: Throwable): Unit = seen += s"error ${t.getMessage}"
    def onComplete(): Unit = seen += "end"

  test("map answers each message in order, the demand passing through as it is"):
    val source = Source("a", "bb", "ccc")
    val sink = Sink()
    WebSocketPipe.map[String, Int](_.length)(source).subscribe(sink)
    sink.subscription.request(2)
    assertEquals(source.requested, 2L)
    assertEquals(sink.seen.result(), List("1", "2"))
    sink.subscription.request(1)
    assertEquals(sink.seen.result(), List("1", "2", "3", "end"))

  test("a function that throws cancels the client's messages and fails the stream, once"):
    val source = Source("a", "boom", "c")
    val sink = Sink()
    WebSocketPipe.map[String, Int](s => if s == "boom" then throw IllegalStateException("no") else 1)(source)
      .subscribe(sink)
    sink.subscription.request(3)
    assert(source.cancelled)
    assertEquals(sink.seen.result(), List("1", "error no"))
