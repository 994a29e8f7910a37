package rapier.pekko.internal

import org.apache.pekko.http.scaladsl.model.ws.{BinaryMessage, Message, TextMessage}
import org.apache.pekko.stream.scaladsl.{Sink, Source}
import org.apache.pekko.stream.stage.{GraphStage, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{Attributes, FlowShape, Inlet, Outlet}
import org.apache.pekko.util.ByteString
import rapier.server.spi.{EventLoop, MessageJoiner, WebSocketChannel, WebSocketIdle, WebSocketUpgrade, WebSocketWatch}

import java.nio.charset.StandardCharsets
import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.concurrent.duration.DurationLong
import scala.util.{Failure, Success, Try}

/**
 * A WebSocket on pekko-http, once upgraded: the one stage of the flow pekko-http's `handleMessages` runs. pekko-http
 * keeps the frames (masking, reserved bits and opcodes, control frames: 1002), answers pings, checks a text message's
 * UTF-8 (1007) and keeps the close handshake; this stage hands whole messages to the upgrade's relay as it asks for
 * them (the client's next message is pulled only then), joins a message pekko-http streams in parts under the
 * endpoint's limit, keeps the endpoint's idle timeout, and writes the relay's messages one at a time.
 *
 * pekko-http closes a WebSocket with 1000 when its flow completes and with 1011 when it fails, and with no other code:
 * a close with another code (1001, 1003, 1007, 1009 of Rapier's) fails the flow, which pekko-http writes as 1011. On
 * Rapier's own server, its `connection`'s [[GuardStage]] sends the close meant in its place; an application's own
 * pekko-http server sends the 1011 (pekko-http logs the failure, the code and reason in its message).
 */
private[pekko] final class PekkoWebSocket(
    upgrade: WebSocketUpgrade,
    open: PekkoWebSocket.Open | Null,
    connection: Connections.Live | Null
) extends GraphStage[FlowShape[Message, Message]]:
  private val in = Inlet[Message]("PekkoWebSocket.in")
  private val out = Outlet[Message]("PekkoWebSocket.out")
  val shape: FlowShape[Message, Message] = FlowShape(in, out)

  override def initialAttributes: Attributes = Attributes.name("rapierWebSocket")

  def createLogic(inheritedAttributes: Attributes): TimerGraphStageLogic =
    new TimerGraphStageLogic(shape)
      with InHandler
      with OutHandler
      with WebSocketChannel
      with EventLoop
      with PekkoWebSocket.Closable:
      private val relay = upgrade.relay
      private val limit = upgrade.output.maxMessageSize
      private val idle = WebSocketIdle(upgrade.output.idleTimeout)

      // The thread running this stage right now, or null: the relay calls the channel from it only
      private var running: Thread | Null = null
      // A message sent before pekko-http asked for one, pushed when it does
      private var unsent: Message | Null = null
      // A message pushed and not yet taken: the relay hears it written once pekko-http asks for the next
      private var inFlight = false
      // A message pekko-http streams in parts, being joined
      private var joining = false
      private var closed = false
      private var ended = false

      private val tasks = getAsyncCallback[Runnable](task => inside(task.run()))
      private val stopped = Promise[Unit]()
      private val joined = getAsyncCallback[(Try[PekkoWebSocket.Parts], Boolean)] { (result, text) =>
        inside {
          joining = false
          result match
            case Success(parts) => deliver(parts.bytes, text)
            case Failure(_: PekkoWebSocket.TooLong) => tooLong()
            case Failure(_) => () // the connection ended under it: the stage is told so on its own
        }
      }

      setHandlers(in, out, this)

      def inLoop: Boolean = running eq Thread.currentThread
      def execute(task: Runnable): Unit = tasks.invoke(task)

      private def inside(body: => Unit): Unit =
        val before = running
        running = Thread.currentThread
        try body
        finally running = before

      override def preStart(): Unit = inside {
        if open != null then open.nn.add(this)
        if idle.enabled then scheduleOnce(PekkoWebSocket.Idle, idle.nanos.nanos)
        relay.start(this, this)
      }

      def onPush(): Unit = inside {
        idle.touch()
        grab(in) match
          case m: TextMessage.Strict => deliver(m.text.getBytes(StandardCharsets.UTF_8), text = true)
          case m: BinaryMessage.Strict => deliver(m.data.toArrayUnsafe(), text = false)
          case m: TextMessage => join(m.textStream.map(ByteString(_)), text = true)
          case m: BinaryMessage => join(m.dataStream, text = false)
      }

      private def deliver(bytes: Array[Byte], text: Boolean): Unit =
        if !closed then
          if bytes.length > limit then tooLong()
          else relay.received(bytes, text)

      /**
       * A message in parts, joined as they come into one array (a part per byte costs a byte, not a `ByteString` per
       * part); past the limit, the rest of it is not read.
       */
      private def join(parts: Source[ByteString, Any], text: Boolean): Unit =
        joining = true
        parts
          .runWith(Sink.fold(PekkoWebSocket.Parts(limit))(_.add(_)))(using subFusingMaterializer)
          .onComplete(result => joined.invoke((result, text)))(using ExecutionContext.parasitic)

      private def tooLong(): Unit =
        closing(1009, MessageJoiner.tooLong(limit))

      def requestMessage(): Unit =
        if !closed && !joining && !isClosed(in) && !hasBeenPulled(in) then pull(in)

      def send(bytes: Array[Byte], text: Boolean): Unit =
        if !closed then
          idle.touch()
          val message =
            if text then TextMessage.Strict(new String(bytes, StandardCharsets.UTF_8))
            else BinaryMessage.Strict(ByteString.fromArrayUnsafe(bytes))
          if isAvailable(out) then
            push(out, message)
            inFlight = true
          else unsent = message

      def onPull(): Unit = inside {
        val next = unsent
        if next != null then
          unsent = null
          push(out, next)
          inFlight = true
        else if inFlight then
          inFlight = false
          if !closed then relay.written()
      }

      def close(code: Int, reason: String): Unit =
        if !closed then
          closed = true
          val last = unsent
          unsent = null
          if last != null then emit(out, last, () => finish(code, reason))
          else finish(code, reason)

      /** Completing the flow is pekko-http's 1000; failing it, its 1011, which the connection's guard replaces. */
      private def finish(code: Int, reason: String): Unit =
        if code == 1000 then completeStage()
        else
          if connection != null then connection.nn.webSocketClose = WebSocketWatch.closeFrame(code, reason)
          failStage(PekkoWebSocket.Closed(code, reason))

      /** A close of the stage's own (not the relay's): the relay hears of it. */
      private def closing(code: Int, reason: String): Unit =
        close(code, reason)
        end()

      private def end(): Unit =
        if !ended then
          ended = true
          relay.ended()

      // The client closed (pekko-http answers its close once this stage completes), or the connection broke
      override def onUpstreamFinish(): Unit = inside {
        end()
        completeStage()
      }
      override def onUpstreamFailure(cause: Throwable): Unit = inside {
        end()
        completeStage()
      }
      override def onDownstreamFinish(cause: Throwable): Unit = inside {
        end()
        completeStage()
      }

      override def postStop(): Unit = inside {
        end()
        if open != null then open.nn.remove(this)
        stopped.trySuccess(())
      }

      def goingAway(): Future[Unit] =
        tasks.invoke(() => if !closed then closing(WebSocketIdle.Code, WebSocketIdle.GoingAway))
        stopped.future

      override protected def onTimer(key: Any): Unit = inside {
        if !closed then
          val left = idle.left
          if left <= 0 then closing(WebSocketIdle.Code, WebSocketIdle.Idle)
          else scheduleOnce(PekkoWebSocket.Idle, left.nanos)
      }

private[pekko] object PekkoWebSocket:
  private object Idle

  /** An open WebSocket, as the server sees it when it stops. */
  trait Closable:
    /** Closes it as the server stops (pekko-http's 1011: see [[PekkoWebSocket]]); done once its stage has stopped. */
    def goingAway(): Future[Unit]

  /** The open WebSockets of a server. */
  final class Open:
    private val sockets = ConcurrentHashMap.newKeySet[Closable]()
    def add(socket: Closable): Unit = sockets.add(socket)
    def remove(socket: Closable): Unit = sockets.remove(socket)

    /** Closes every open WebSocket; done once each has stopped (its close frame handed to pekko-http). */
    def closeAll(): Future[Unit] =
      val closing = List.newBuilder[Future[Unit]]
      sockets.forEach(s => closing += s.goingAway())
      Future.sequence(closing.result())(using implicitly, ExecutionContext.parasitic).map(_ => ())(using
        ExecutionContext.parasitic
      )

  /** A message past the endpoint's limit, found as its parts are joined. */
  private final class TooLong extends RuntimeException("too long", null, false, false)

  /** A message's parts, joined into one array that doubles as it fills, within `limit`. */
  private final class Parts(limit: Int):
    private var joined = new Array[Byte](256)
    private var size = 0

    def add(part: ByteString): Parts =
      if size.toLong + part.length > limit then throw TooLong()
      if size + part.length > joined.length then
        joined = java.util.Arrays.copyOf(
          joined,
          math.min(limit.toLong, math.max(size + part.length, 2L * joined.length)).toInt
        )
      part.copyToArray(joined, size, part.length)
      size += part.length
      this

    def bytes: Array[Byte] = if size == joined.length then joined else java.util.Arrays.copyOf(joined, size)

  /** How a close of Rapier's with a code other than 1000 fails the flow: pekko-http logs it, and closes with 1011. */
  final class Closed(code: Int, reason: String)
      extends RuntimeException(s"WebSocket closed with $code (sent as 1011): $reason", null, false, false)
