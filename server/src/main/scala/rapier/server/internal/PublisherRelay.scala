package rapier.server.internal

import org.slf4j.LoggerFactory
import rapier.flow.Demand
import rapier.server.spi.{EventLoop, WebSocketChannel, WebSocketRelay}
import rapier.{EndpointOutput, WebSocketCodec}

import java.util.concurrent.Flow
import scala.util.control.NonFatal

/**
 * Runs a [[rapier.WebSocketKind.Publishers]] pipe on a backend's [[WebSocketChannel]]: the client's messages go to
 * the logic as a publisher that asks the connection for one message per unit of its subscriber's demand, and the
 * logic's publisher is asked for one message at a time, the next once the last is written. Nothing stands between the
 * two: a pipe that returns its argument (an echo) has the connection's messages written as they are read, one at a
 * time.
 */
private[server] final class PublisherRelay(output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: Any)
    extends WebSocketRelay:
  private val in = output.in.asInstanceOf[WebSocketCodec[Any]]
  private val out = output.out.asInstanceOf[WebSocketCodec[Any]]

  // Set by `start`, then touched on the loop only
  private var channel: WebSocketChannel = null
  private var loop: EventLoop = null
  private var subscriber: Flow.Subscriber[? >: Any] | Null = null
  private var demand = 0L
  private var asked = false
  private var inboundDone = false
  private var outbound: Flow.Subscription | Null = null
  private var outboundDone = false
  private var closed = false

  /** Runs the logic's pipe, and subscribes to what it returns. */
  def start(channel: WebSocketChannel, loop: EventLoop): Unit =
    this.channel = channel
    this.loop = loop
    if !closed then
      try pipe.asInstanceOf[Flow.Publisher[Any] => Flow.Publisher[Any]](Inbound).subscribe(Outbound)
      catch
        case NonFatal(e) =>
          PublisherRelay.log.error("A WebSocket's pipe failed", e)
          close(1011, "The server failed.")

  def received(bytes: Array[Byte], text: Boolean): Unit =
    asked = false
    if !closed then
      if subscriber == null || inboundDone then askIfWanted()
      else
        val message = WebSocketRelay.decode(in, bytes, text, closeWith)
        if message != null then
          demand -= 1
          subscriber.nn.onNext(message.value)
          askIfWanted()

  def written(): Unit = if !closed && outbound != null then outbound.nn.request(1)

  // The logic's stream is cancelled at once: its messages have nowhere to go. Its own end, which may still come, is
  // not the client's messages' end.
  override def closing(): Unit =
    outboundDone = true
    cancelOutbound()

  def ended(): Unit =
    closed = true
    endInbound()
    cancelOutbound()

  private def cancelOutbound(): Unit =
    val s = outbound
    outbound = null
    if s != null then s.nn.cancel()

  private val closeWith: (Int, String) => Unit = close

  private def close(code: Int, reason: String): Unit =
    if !closed then
      closed = true
      channel.close(code, reason)
      ended()

  private def endInbound(): Unit =
    if !inboundDone then
      inboundDone = true
      if subscriber != null then subscriber.nn.onComplete()

  // A message is asked for while the subscriber wants one; or, once no one reads them, to keep control frames coming
  private def askIfWanted(): Unit =
    if !asked && !closed && (demand > 0 || inboundDone) then
      asked = true
      channel.requestMessage()

  private def onLoop(task: Runnable): Unit = if loop.inLoop then task.run() else loop.execute(task)

  /** The client's messages: one subscriber, as many messages as it asks for. */
  private object Inbound extends Flow.Publisher[Any]:
    def subscribe(s: Flow.Subscriber[? >: Any]): Unit = onLoop { () =>
      if subscriber != null then Demand.refuse(s, "a WebSocket's messages are read by one subscriber")
      else
        subscriber = s
        s.onSubscribe(InboundSubscription)
        if inboundDone then s.onComplete()
    }

  private object InboundSubscription extends Flow.Subscription:
    def request(n: Long): Unit = onLoop { () =>
      if n <= 0 then
        if !inboundDone then
          inboundDone = true
          subscriber.nn.onError(IllegalArgumentException(Demand.nonPositive(n, "messages")))
        close(1011, "The server failed.")
      else
        demand = Demand.plus(demand, n)
        askIfWanted()
    }
    def cancel(): Unit = onLoop { () =>
      // No one reads the messages any more: they are still read (and dropped), so that control frames come through
      inboundDone = true
      askIfWanted()
    }

  /** The server's messages: asked for one at a time, each sent before the next is asked for. */
  private object Outbound extends Flow.Subscriber[Any]:
    def onSubscribe(s: Flow.Subscription): Unit = onLoop { () =>
      if closed || outboundDone then s.cancel()
      else
        outbound = s
        s.request(1)
    }
    def onNext(message: Any): Unit =
      val bytes =
        try out.encode(message)
        catch
          case NonFatal(e) =>
            PublisherRelay.log.error("A WebSocket message could not be encoded", e)
            null
      onLoop { () =>
        if bytes == null then close(1011, "The server failed.")
        else if !closed then channel.send(bytes, out.text)
      }
    def onError(t: Throwable): Unit = onLoop { () =>
      if !closed && !outboundDone then
        PublisherRelay.log.error("A WebSocket's stream of messages failed", t)
        close(1011, "The server failed.")
    }
    def onComplete(): Unit = onLoop(() => if !outboundDone then close(1000, ""))

private object PublisherRelay:
  private val log = LoggerFactory.getLogger(classOf[PublisherRelay])
