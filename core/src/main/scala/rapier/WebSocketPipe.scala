package rapier

import java.util.concurrent.Flow
import scala.util.control.NonFatal

/** Pipes for [[WebSocketKind.Publishers]] WebSockets, for logic without a stream library of its own. */
object WebSocketPipe:
  /** Each of the client's messages answered by the server's message `f` makes of it, in order. */
  def map[In, Out](f: In => Out): Flow.Publisher[In] => Flow.Publisher[Out] = in => Mapped(in, f)

  /**
   * One message out for each message in: the subscriber's demand and cancellation go to the client's messages as they
   * are, with nothing held between. A function that throws cancels the client's messages and fails the stream.
   */
  private final class Mapped[In, Out](in: Flow.Publisher[In], f: In => Out) extends Flow.Publisher[Out]:
    def subscribe(s: Flow.Subscriber[? >: Out]): Unit = in.subscribe(new Flow.Subscriber[In]:
      private var upstream: Flow.Subscription | Null = null
      private var failed = false
      def onSubscribe(subscription: Flow.Subscription): Unit =
        upstream = subscription
        s.onSubscribe(subscription)
      def onNext(message: In): Unit =
        if !failed then
          val out =
            try f(message)
            catch
              case NonFatal(e) =>
                failed = true
                upstream.nn.cancel()
                s.onError(e)
                null
          if !failed then s.onNext(out.asInstanceOf[Out])
      def onError(t: Throwable): Unit = if !failed then s.onError(t)
      def onComplete(): Unit = if !failed then s.onComplete())
