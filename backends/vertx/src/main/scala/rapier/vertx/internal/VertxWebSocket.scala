package rapier.vertx.internal

import io.netty.buffer.Unpooled
import io.vertx.core.http.impl.websocket.WebSocketFrameImpl
import io.vertx.core.http.{ServerWebSocket, WebSocketFrame, WebSocketFrameType}
import io.vertx.core.{AsyncResult, Context, Handler, Vertx}
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException
import rapier.server.spi.{
  EventLoop,
  HeldMessages,
  MessageJoiner,
  WebSocketChannel,
  WebSocketIdle,
  WebSocketRelay,
  WebSocketUpgrade
}

/**
 * A WebSocket on Vert.x, once upgraded: Vert.x's `ServerWebSocket` keeps the frames (Netty's decoder beneath refuses
 * what RFC 6455 forbids with 1002), answers pings and echoes the client's close; this channel, fed frame by frame
 * (`frameHandler`, the socket paused and fetched one frame at a time), joins fragments into messages under the
 * endpoint's own limit (1009 past it), checks a text message's UTF-8 as its frames come (1007), keeps the
 * endpoint's idle timeout (1001), and hands whole messages to the upgrade's relay as it asks for them. A frame
 * Netty's decoder refuses closes it with the decoder's code (1002, 1009); the server's stop with 1001.
 */
private[vertx] final class VertxWebSocket(
    socket: ServerWebSocket,
    upgrade: WebSocketUpgrade,
    context: Context,
    connections: Connections
) extends WebSocketChannel,
      EventLoop,
      Handler[WebSocketFrame]:
  private val relay = upgrade.relay
  private val limit = upgrade.output.maxMessageSize
  private val idle = WebSocketIdle(upgrade.output.idleTimeout)

  // Touched on the context only
  private val message = MessageJoiner(limit, whole, closing)
  private var wanted = false
  private var closeSent = false
  private var idleTimer = -1L
  // Vert.x ends the connection once the client's close comes, and the frames it still holds for the paused socket,
  // sent before that close, are then handed over at once: held for the relay, which takes them before its end
  private val held = HeldMessages(relay)
  private var clientClosed = false

  // A message written and waiting for room in the write queue before the relay hears of it
  private var writeWaiting = false
  // Vert.x answers each ping as it arrives and fetches another frame once it is delivered, whatever the socket's
  // demand: while the pongs go unread the demand is taken back, so that frames wait in Vert.x's queue, which stops
  // reading past its mark, until the write queue drains.
  private var pingsHeld = false

  // After a write: the next message once the write queue has room. One object for both of Vert.x's callbacks.
  private val afterWrite: Handler[AnyRef] =
    case result: AsyncResult[?] if result.failed => ()
    case _ =>
      // Vert.x may have closed the socket before its close handler runs: the queue is then not to be asked
      if !closeSent && !socket.isClosed then
        if socket.writeQueueFull then
          writeWaiting = true
          socket.drainHandler(drained)
        else relay.written()

  // The write queue has room: pings are read again, and a message waiting for room is told written
  private val drained: Handler[Void] = _ =>
    if pingsHeld then
      pingsHeld = false
      if !closeSent && (wanted || message.joining) then socket.fetch(1)
    if writeWaiting then
      writeWaiting = false
      afterWrite.handle(null)

  def inLoop: Boolean = Vertx.currentContext == context
  def execute(task: Runnable): Unit = context.runOnContext(_ => task.run())

  /** Takes the socket over and starts the relay. */
  def begin(): Unit =
    socket.pause()
    socket.frameHandler(this)
    socket.closeHandler(_ => ended())
    socket.exceptionHandler {
      // A frame Netty's decoder refused: closed with the decoder's code before Vert.x closes the connection
      case broken: CorruptedWebSocketFrameException =>
        closing(broken.closeStatus.code, WebSocketRelay.reason(broken.getMessage))
      case _ => ()
    }
    connections.opened(this)
    if idle.enabled then watchIdle(idle.nanos)
    relay.start(this, this)

  def handle(frame: WebSocketFrame): Unit =
    idle.touch()
    frame.`type` match
      case WebSocketFrameType.TEXT => part(frame, text = true)
      case WebSocketFrameType.BINARY => part(frame, text = false)
      case WebSocketFrameType.CONTINUATION => part(frame, message.text)
      case WebSocketFrameType.PING => if !pingsHeld && !closeSent && socket.writeQueueFull then holdPings()
      case _ => () // the close echoed by Vert.x

  // Taken back after Vert.x's own fetch for this ping, which follows this handler
  private def holdPings(): Unit =
    pingsHeld = true
    socket.drainHandler(drained)
    execute(() => if pingsHeld && !closeSent then socket.pause())

  // Frames are taken until the server's close, or, after the client's, until the relay has heard of the end
  private def part(frame: WebSocketFrame, text: Boolean): Unit =
    val taken = if clientClosed then !held.ended else !closeSent
    if taken then
      message.add(frame.binaryData.getBytes, text, frame.isFinal)
      if !frame.isFinal && !closeSent && !pingsHeld then socket.fetch(1) // the rest of the message, still wanted

  private def whole(bytes: Array[Byte], text: Boolean): Unit =
    if clientClosed then
      held.add(bytes, text)
      if wanted then serveHeld()
    else
      wanted = false
      relay.received(bytes, text)

  def requestMessage(): Unit =
    if clientClosed then
      wanted = true
      if held.answers then execute(() => serveHeld())
    else if !wanted then
      wanted = true
      if !pingsHeld then socket.fetch(1)

  private def serveHeld(): Unit =
    if wanted && held.answers then
      wanted = false
      held.serve()

  def send(bytes: Array[Byte], text: Boolean): Unit =
    if !closeSent then
      idle.touch()
      val kind = if text then WebSocketFrameType.TEXT else WebSocketFrameType.BINARY
      socket
        .writeFrame(WebSocketFrameImpl(kind, Unpooled.wrappedBuffer(bytes), true))
        .onComplete(afterWrite.asInstanceOf[Handler[AsyncResult[Void]]])

  def close(code: Int, reason: String): Unit =
    if !closeSent then
      closeSent = true
      // Vert.x waits for the client's close, then closes the connection (or after its closing timeout)
      socket.close(code.toShort, reason)
      // The client's close must come through, whatever the relay still wants
      socket.resume()

  private def ended(): Unit =
    // The connection ended without the server's close: the client's close came, or the client left
    clientClosed = !closeSent
    closeSent = true
    // Frames Vert.x still holds for a paused socket are let go only as they are delivered: at once, here
    socket.resume()
    connections.closed(this)
    if idleTimer >= 0 then context.owner.cancelTimer(idleTimer)
    if !clientClosed then held.end()
    // After what resume handed over
    else
      execute(() =>
        held.endAfter { (millis, task) =>
          val timer = context.owner.setTimer(millis, _ => task.run())
          () => val _ = context.owner.cancelTimer(timer)
        }
      )

  /** The server is stopping: closed with 1001, on the socket's context. */
  def goingAway(): Unit = execute(() => closing(WebSocketIdle.Code, WebSocketIdle.GoingAway))

  /** A close of the channel's own (not the relay's): the relay hears of it. */
  private def closing(code: Int, reason: String): Unit =
    close(code, reason)
    held.end()

  private def watchIdle(nanos: Long): Unit =
    idleTimer = context.owner.setTimer(math.max(1L, nanos / 1000000L), _ => checkIdle())

  private def checkIdle(): Unit =
    idleTimer = -1L
    if !closeSent then
      val left = idle.left
      if left <= 0 then closing(WebSocketIdle.Code, WebSocketIdle.Idle) else watchIdle(left)
