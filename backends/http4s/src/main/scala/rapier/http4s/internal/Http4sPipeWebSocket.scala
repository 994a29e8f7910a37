package rapier.http4s.internal

import cats.effect.Async
import cats.effect.std.Queue
import fs2.{Pipe, Stream}
import org.http4s.websocket.WebSocketFrame
import org.slf4j.LoggerFactory
import rapier.cats.await
import rapier.server.spi.OnceSignal
import rapier.server.spi.{MessageJoiner, WebSocketIdle, WebSocketRelay}
import rapier.{EndpointOutput, WebSocketCodec}
import scodec.bits.ByteVector

import java.util.concurrent.{ScheduledFuture, TimeUnit}

/**
 * A WebSocket on http4s's Ember whose logic is an fs2 pipe of the endpoint's effect: the pipe runs in Ember's own two
 * streams, with no loop and no relay between them. Ember's reader, in the `receive` pipe, joins the client's frames
 * into messages (the endpoint's limit, 1009 past it; a text message's UTF-8 checked as its frames come, 1007) and
 * decodes them (1003, 1007), handing each to the logic's pipe through a slot of one message; it reads a message only
 * once the pipe asks for one (`asks`). The client's close, which Ember answers by ending both streams, is so read only
 * once the pipe has taken every message sent before it and asks for the next (RFC 6455 §5.5.1). The logic's pipe is
 * Ember's `send` stream: each of its messages is written before it goes on. Ember answers pings and the client's close
 * itself, as the pipe pulls frames.
 *
 * The pipe's stream ending closes the WebSocket with 1000, failing with 1011 (logged); a message it can't take, the
 * endpoint's idle timeout (1001) and the server's stop (1001) interrupt the pipe, its finalizers run, then the close
 * is written; Ember then waits for the client's close, the frames before it read and dropped. The client's close, or
 * the connection breaking, interrupts the pipe. A pipe that drops its input has the client's later messages read and
 * dropped, so that its pings and close are still answered; until it first pulls, nothing is read.
 */
private[http4s] final class Http4sPipeWebSocket[F[_]](
    output: EndpointOutput.WebSocketBody[?, ?, ?],
    pipe: Pipe[F, Any, Any],
    inbox: Queue[F, Any],
    asks: Queue[F, Unit],
    open: Http4sWebSocket.Open
)(using F: Async[F])
    extends Http4sWebSocket.Stoppable:
  private val in = output.in.asInstanceOf[WebSocketCodec[Any]]
  private val out = output.out.asInstanceOf[WebSocketCodec[Any]]
  private val idle = WebSocketIdle(output.idleTimeout)

  private val closing = OnceSignal[WebSocketFrame.Close]()
  @volatile private var dropped = false
  @volatile private var ended = false
  @volatile private var idleTimer: ScheduledFuture[?] | Null = null
  // Touched by the reader only
  private val message = MessageJoiner(output.maxMessageSize, whole, close)
  private var joined: Array[Byte] | Null = null
  private var joinedText = false

  /**
   * The pipe takes no more messages: those still coming are dropped, the slot emptied, and the reader, waiting for the
   * pipe to ask, reads on.
   */
  // Defined before the streams that use it
  private val release: F[Unit] =
    F.productR(F.delay { dropped = true })(F.productR(F.void(inbox.tryTake))(F.void(asks.tryOffer(()))))

  // The reader waits for the pipe to ask before it reads a message; once the pipe drops its input, it reads on
  private val asked: F[Unit] = F.defer(if dropped then F.unit else asks.take)

  /** What Ember reads: each frame joined, each whole message decoded and handed to the pipe. */
  val receive: Pipe[F, WebSocketFrame, Unit] = frames =>
    (Stream.exec(F.productR(F.delay(begin()))(asked)) ++ frames.foreach(received)).onFinalize(F.delay(end()))

  /** What Ember writes: the pipe's messages, then the close. */
  val send: Stream[F, WebSocketFrame] =
    val messages = Stream.repeatEval(F.productR(asks.offer(()))(inbox.take)).onFinalize(release)
    pipe(messages)
      .map(frameOf)
      .interruptWhen(F.as(closing.await[F], Right(())))
      .handleErrorWith(e =>
        Stream.exec(F.delay {
          Http4sPipeWebSocket.log.error("A WebSocket's stream of messages failed", e)
          close(1011, "The server failed.")
        })
      ) ++ Stream.eval(F.productR(release)(F.delay { close(1000, ""); closing.value.nn }))

  private def begin(): Unit =
    open.add(this)
    if idle.enabled then watchIdle(idle.nanos)

  private def received(frame: WebSocketFrame): F[Unit] = F.defer {
    idle.touch()
    if closing.value == null then
      frame match
        case f: WebSocketFrame.Text => message.add(f.data.toArrayUnsafe, text = true, f.last)
        case f: WebSocketFrame.Binary => message.add(f.data.toArrayUnsafe, text = false, f.last)
        case f: WebSocketFrame.Continuation => message.add(f.data.toArrayUnsafe, message.text, f.last)
        case _ => () // pings answered, the close handled, by Ember
    val bytes = joined
    if bytes == null then F.unit
    else
      joined = null
      val value = WebSocketRelay.decode(in, bytes, joinedText, close)
      if value == null || dropped then F.unit else F.productR(inbox.offer(value.value))(asked)
  }

  private def whole(bytes: Array[Byte], text: Boolean): Unit =
    joined = bytes
    joinedText = text

  private def frameOf(message: Any): WebSocketFrame =
    idle.touch()
    val payload = ByteVector.view(out.encode(message))
    if out.text then WebSocketFrame.Text(payload, true) else WebSocketFrame.Binary(payload, true)

  /** The close to write once the pipe is interrupted, if none was asked for before. */
  private def close(code: Int, reason: String): Unit =
    val _ = closing.fire(WebSocketFrame.Close(code, reason).getOrElse(WebSocketFrame.Close()))

  def goingAway(): Unit = close(WebSocketIdle.Code, WebSocketIdle.GoingAway)

  def broken(code: Int, reason: String): Unit = close(code, reason)

  private def end(): Unit =
    ended = true
    open.remove(this)
    val timer = idleTimer
    if timer != null then timer.cancel(false)

  // The check runs on the timers' thread, the end on the reader's. Each writes its own field before it reads the
  // other's, so a timer armed as the WebSocket ends is cancelled by one of them rather than held until it fires.
  private def watchIdle(nanos: Long): Unit =
    val timer = Http4sWebSocket.timers.schedule((() => checkIdle()): Runnable, nanos, TimeUnit.NANOSECONDS)
    idleTimer = timer
    if ended then timer.cancel(false)

  private def checkIdle(): Unit =
    if !ended && closing.value == null then
      val left = idle.left
      if left <= 0 then close(WebSocketIdle.Code, WebSocketIdle.Idle) else watchIdle(left)

private[http4s] object Http4sPipeWebSocket:
  private val log = LoggerFactory.getLogger(classOf[Http4sPipeWebSocket[?]])
