package rapier.netty.internal

import io.netty.buffer.{ByteBufUtil, Unpooled}
import io.netty.channel.{ChannelFutureListener, ChannelHandlerContext, ChannelInboundHandlerAdapter}
import io.netty.handler.codec.TooLongFrameException
import io.netty.handler.codec.http.websocketx.*
import io.netty.util.ReferenceCountUtil
import rapier.nettyhttp.{CloseDeadline, IdleWatch}
import rapier.server.spi.{
  EventLoop,
  HeldMessages,
  MessageJoiner,
  WebSocketChannel,
  WebSocketIdle,
  WebSocketRelay,
  WebSocketUpgrade,
  WebSocketWatch
}

import java.util.concurrent.TimeUnit

/**
 * A WebSocket connection, once upgraded: Netty's frame decoder and encoder beneath (masking, control frames, the
 * payload limit, reserved bits and opcodes, the order of fragments, a close's code and reason); this handler joins
 * fragments into messages ([[MessageJoiner]]: the message limit, UTF-8), closes what they refuse with their code
 * (1002, 1007, 1009), answers pings, keeps the close handshake and the idle timeout, and hands whole messages to the
 * upgrade's relay as it asks for them. Once a message is first wanted, the connection is read on while less than
 * [[NettyWebSocket.ReadAhead]] bytes of messages wait for the relay (or while the close is awaited) and the socket
 * takes what is written (pongs included): beyond that, the client's frames wait in its socket, not here.
 */
private[netty] final class NettyWebSocket(upgrade: WebSocketUpgrade)
    extends ChannelInboundHandlerAdapter,
      WebSocketChannel,
      EventLoop:
  private var ctx: ChannelHandlerContext = null
  private val relay = upgrade.relay
  // Messages read before they were asked for (one read may hold several frames), and the end behind them
  private val held = HeldMessages(relay)
  // Whether reading stopped with ReadAhead bytes waiting: taking them below it reads again
  private var paused = false
  private var wanted = false
  private var closeSent = false
  private var clientClosed = false
  private var idle: IdleWatch = null

  private val deliver: Runnable = () => deliverReady()
  private var gate: WriteGate = null
  private val joiner = MessageJoiner(upgrade.output.maxMessageSize, joined, closing)

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    ctx.channel.config.setAutoRead(false)
    val timeout = rapier.timeoutNanos(upgrade.output.idleTimeout)
    if timeout > 0 then
      idle = IdleWatch(ctx, timeout, () => true, () => closing(WebSocketIdle.Code, WebSocketIdle.Idle))
      idle.start()
    gate = WriteGate(ctx, () => relay.written(), () => ctx.close())
    relay.start(this, this)

  def inLoop: Boolean = ctx.executor.inEventLoop
  def execute(task: Runnable): Unit = ctx.executor.execute(task)

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    if idle != null then idle.touch()
    msg match
      case frame: TextWebSocketFrame => data(frame, text = true)
      case frame: BinaryWebSocketFrame => data(frame, text = false)
      case frame: ContinuationWebSocketFrame => data(frame, joiner.text)
      case ping: PingWebSocketFrame =>
        if closeSent then ping.release()
        else ctx.writeAndFlush(PongWebSocketFrame(ping.content))
      case close: CloseWebSocketFrame =>
        try
          if !closeSent then
            closeSent = true
            clientClosed = true
            // The client's code is echoed (RFC 6455 §5.5.1); a close without one is answered without one
            val reply =
              if close.statusCode < 0 then CloseWebSocketFrame()
              else CloseWebSocketFrame(close.statusCode, "")
            ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE)
            endAfterHeld()
          else
            ctx.close()
            held.end()
        finally close.release()
      case other => ReferenceCountUtil.release(other)

  private def data(frame: WebSocketFrame, text: Boolean): Unit =
    try if !closeSent then joiner.add(ByteBufUtil.getBytes(frame.content), text, frame.isFinalFragment)
    finally frame.release()

  private def joined(bytes: Array[Byte], text: Boolean): Unit =
    held.add(bytes, text)
    if wanted then deliverReady()

  // Reads on while less than ReadAhead waits for the logic and the socket takes what is written: a read asked for
  // here, before Netty's read ends, keeps the socket's read interest as it is, where stopping and starting again at
  // each message cost two epoll_ctl calls each
  override def channelReadComplete(ctx: ChannelHandlerContext): Unit =
    if closeSent || readsOn then ctx.read() else paused = true

  private def readsOn: Boolean = held.bytes < NettyWebSocket.ReadAhead && ctx.channel.isWritable

  def requestMessage(): Unit =
    wanted = true
    if held.answers then ctx.executor.execute(deliver) else ctx.read()

  private def deliverReady(): Unit =
    if wanted && held.answers then
      wanted = false
      held.serve()
      if paused && readsOn then
        paused = false
        ctx.read()

  // The client's close, or its leaving: the messages read before it still go to the relay
  private def endAfterHeld(): Unit = held.endAfter { (millis, task) =>
    val timer = ctx.executor.schedule(task, millis, TimeUnit.MILLISECONDS)
    () => val _ = timer.cancel(false)
  }

  def send(bytes: Array[Byte], text: Boolean): Unit =
    if !closeSent then
      if idle != null then idle.touch()
      val payload = Unpooled.wrappedBuffer(bytes)
      val frame = if text then TextWebSocketFrame(payload) else BinaryWebSocketFrame(payload)
      ctx.writeAndFlush(frame).addListener(gate.afterWrite)

  def close(code: Int, reason: String): Unit =
    if !closeSent && ctx.channel.isActive then
      closeSent = true
      ctx.writeAndFlush(CloseWebSocketFrame(code, reason))
      // The client answers with its close, which ends the connection; one that doesn't is closed after a while
      ctx.read()
      CloseDeadline.after(ctx.channel, NettyWebSocket.CloseWaitMillis)

  /** A close of the server's own (not the relay's): the relay hears of it. */
  private def closing(code: Int, reason: String): Unit =
    close(code, reason)
    held.end()

  /** The server is stopping: the WebSocket closes with 1001. */
  def goingAway(): Unit =
    if closeSent then
      ctx.close()
      held.end()
    else closing(WebSocketIdle.Code, WebSocketIdle.GoingAway)

  override def channelWritabilityChanged(ctx: ChannelHandlerContext): Unit =
    gate.writable()
    if paused && readsOn then
      paused = false
      ctx.read()
    ctx.fireChannelWritabilityChanged()

  // A connection that ends after the client's close, or with none (a client gone), ends after the messages held; one
  // the server closed ends now
  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    if clientClosed || !closeSent then endAfterHeld() else held.end()
    ctx.fireChannelInactive()

  // A rule the client broke, found by the watch before the frame decoder (WatchedFrames)
  override def userEventTriggered(ctx: ChannelHandlerContext, event: Any): Unit = event match
    case breach: WebSocketWatch.Breach => closing(breach.code, breach.reason)
    case other => ctx.fireUserEventTriggered(other)

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
    cause match
      // Netty's decoder or UTF-8 check refused a frame and reads nothing more: closed at once with their code
      case broken: CorruptedWebSocketFrameException =>
        if closeSent || !ctx.channel.isActive then ctx.close()
        else
          closeSent = true
          val code = broken.closeStatus.code
          val reason =
            if code == 1009 then MessageJoiner.tooLong(upgrade.output.maxMessageSize)
            else WebSocketRelay.reason(broken.getMessage)
          ctx.writeAndFlush(CloseWebSocketFrame(code, reason)).addListener(ChannelFutureListener.CLOSE)
      case _: TooLongFrameException =>
        close(1009, MessageJoiner.tooLong(upgrade.output.maxMessageSize))
      case _ => ctx.close()
    held.end()

private[netty] object NettyWebSocket:
  /** How long a close waits for the client's. */
  val CloseWaitMillis = 1000L

  /**
   * Bytes of whole messages read ahead of the logic's asking, past which the connection is no longer read until the
   * logic takes them: the back-pressure, and all a connection holds beyond the message being joined.
   */
  val ReadAhead: Long = 64 * 1024

  /**
   * Turns an HTTP connection into a WebSocket one once its 101 is written: Netty's frame codec replaces the HTTP one,
   * and a [[NettyWebSocket]] the HTTP handler.
   */
  def upgrade(ctx: ChannelHandlerContext, upgrade: WebSocketUpgrade): Unit =
    val limit = upgrade.output.maxMessageSize
    val config = WebSocketDecoderConfig
      .newBuilder()
      .maxFramePayloadLength(limit)
      .expectMaskedFrames(true)
      .allowMaskMismatch(false)
      .allowExtensions(false)
      // Refused frames are closed by the handler: Netty's decoder writes no close once the client's has come
      .closeOnProtocolViolation(false)
      .build()
    val pipeline = ctx.pipeline
    pipeline.addBefore("decoder", "ws-encoder", WebSocket13FrameEncoder(false))
    pipeline.replace("decoder", "ws-decoder", WebSocket13FrameDecoder(config))
    // Text is checked as it comes, inside a frame still arriving
    if upgrade.output.in.text then
      pipeline.addBefore("ws-decoder", "ws-watch", WatchedFrames(WebSocketWatch(true, limit)))
    pipeline.remove("encoder")
    pipeline.replace(ctx.handler, "websocket", NettyWebSocket(upgrade))
