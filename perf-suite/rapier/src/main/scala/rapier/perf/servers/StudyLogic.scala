package rapier.perf.servers

import rapier.*
import rapier.perf.common.Ticks
import rapier.server.*

import java.util.concurrent.Flow
import scala.concurrent.Future

/**
 * The WebSocket study's two endpoints and the SSE study's events, as Rapier's Future logic and direct style write them:
 * the same publishers, the logic only handing them over.
 */
object StudyLogic:
  private val echo = endpoint.get.in("ws" / "echo").out(webSocketBody[String, String])
  private val ticks = endpoint.get.in("ws" / "ts").out(webSocketBody[String, String])
  private val events = endpoint.get.in("sse" / "ts").out(sseBody())

  def endpoints: List[ServerEndpoint[Future]] = List(
    echo.serverLogicSuccess(_ => Future.successful(in => in)),
    ticks.serverLogicSuccess(_ => Future.successful(in => Ticked(in))),
    events.serverLogicSuccess(_ => Future.successful(TickEvents))
  )

  /** The same in direct style: the logic runs on the request's virtual thread, the pipes as the Future ones do. */
  def direct: List[ServerEndpoint[Identity]] = List(
    echo.serverLogicSuccess[Identity](_ => in => in),
    ticks.serverLogicSuccess[Identity](_ => in => Ticked(in)),
    events.serverLogicSuccess[Identity](_ => TickEvents)
  )

  /**
   * `/sse/ts`: an event at every tick of [[Ticks]], its data the time then, taken on the clock's thread (as the
   * vanilla twins do), sent as the connection asks for it; a tick finding no demand is skipped.
   */
  private object TickEvents extends Flow.Publisher[ServerSentEvent]:
    def subscribe(out: Flow.Subscriber[? >: ServerSentEvent]): Unit =
      val subscription = new Flow.Subscription with Runnable:
        private val demand = java.util.concurrent.atomic.AtomicLong()
        // On the clock's thread only
        def run(): Unit =
          if demand.get > 0 then
            demand.decrementAndGet()
            out.onNext(ServerSentEvent.data(Ticks.stamp()))
        def request(n: Long): Unit = demand.getAndAccumulate(n, (a, b) => if a + b < 0 then Long.MaxValue else a + b)
        def cancel(): Unit = Ticks.remove(this)
      out.onSubscribe(subscription)
      Ticks.add(subscription)

  /**
   * `/ws/ts`, the seed's throttled stream: each of the client's messages is answered on the next tick of [[Ticks]]
   * with the time then, taken on the clock's thread (as the vanilla twin does), sent as the connection asks for it.
   */
  private final class Ticked(in: Flow.Publisher[String]) extends Flow.Publisher[String]:
    def subscribe(out: Flow.Subscriber[? >: String]): Unit =
      val state = State(out)
      out.onSubscribe(state)
      in.subscribe(state)

  private final class State(out: Flow.Subscriber[? >: String])
      extends Flow.Subscriber[String],
        Flow.Subscription,
        Runnable:
    // Guarded by `this`
    private var waiting = 0
    private var due = 0
    private var demand = 0L
    private var ended = false
    @volatile private var upstream: Flow.Subscription | Null = null

    def onSubscribe(s: Flow.Subscription): Unit =
      upstream = s
      Ticks.add(this)
      s.request(Long.MaxValue)

    def onNext(message: String): Unit = synchronized { waiting += 1 }
    def onError(t: Throwable): Unit = end()
    def onComplete(): Unit = end()

    private def end(): Unit =
      Ticks.remove(this)
      synchronized { ended = true }
      drain()

    def run(): Unit =
      synchronized {
        due += waiting
        waiting = 0
      }
      drain()

    def request(n: Long): Unit =
      synchronized { demand = if demand + n < 0 then Long.MaxValue else demand + n }
      drain()

    def cancel(): Unit =
      Ticks.remove(this)
      val s = upstream
      if s != null then s.nn.cancel()

    private def drain(): Unit = synchronized {
      while demand > 0 && due > 0 do
        demand -= 1
        due -= 1
        out.onNext(Ticks.stamp())
      if ended && due == 0 then
        ended = false
        out.onComplete()
    }
