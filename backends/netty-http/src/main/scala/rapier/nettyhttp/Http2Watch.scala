package rapier.nettyhttp

import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.channel.{ChannelDuplexHandler, ChannelFutureListener, ChannelHandlerContext, ChannelPromise}
import io.netty.handler.codec.http2.{
  Http2ConnectionHandler,
  Http2Error,
  Http2FrameListener,
  Http2FrameListenerDecorator,
  Http2Headers,
  Http2Settings
}
import rapier.server.Http2
import rapier.server.spi.Http2Frames.{Floods, MaxFrameSize, Reader}
import rapier.server.spi.{Http2Ledger, Http2Stalls}

import java.util.concurrent.TimeUnit

/**
 * Rapier's watch over an HTTP/2 connection whose layer is Netty's (`http2`: a frame codec, or a server's own subclass
 * of Netty's connection handler), for what the layer has no deadline for, counting progress rather than traffic. An
 * answer its client stopped taking (its window shut, or opened a few bytes at a time) is reset with CANCEL after the
 * idle timeout, or sooner while the server holds more than its bound of them ([[Http2Ledger]]); a connection with no
 * stream open and nothing but PINGs, SETTINGS and window updates for the idle timeout is ended; and so is one whose
 * client takes longer than `headNanos` over its first SETTINGS or a header block (Netty holds a block until its last
 * frame, with no deadline). A connection ends with a GOAWAY, then closes.
 *
 * It goes just before `http2`, where it sees the connection's bytes both ways. The client's frames reach the ledger as
 * the layer decodes them (a decorator of its frame listener); their bytes are read only for the head's
 * deadline, and the server's for what it sends. Put in place once the connection has begun, the watch takes what
 * passed before it from the layer's own state, and reads the client's bytes from the next read on, assuming it begins
 * a frame (a client's first flight ends with one): a frame header it can't take for one (longer than the largest
 * frame) leaves the head's deadline untimed on that connection, never timed wrong.
 */
private[rapier] final class Http2Watch(
    http2: Http2ConnectionHandler,
    limits: Http2,
    stalls: Http2Stalls,
    idleNanos: Long,
    headNanos: Long
) extends ChannelDuplexHandler,
      Runnable:
  private val in = Reader(keeps = false)
  private val out = Reader(keeps = false)
  private val bytes = BufBytes()
  private val floods = Floods(limits)
  private val ledger = Http2Ledger(idleNanos, stalls)
  private val tick = Http2Ledger.tick(idleNanos, headNanos)
  private var ctx: ChannelHandlerContext = null
  private var next: io.netty.util.concurrent.ScheduledFuture[?] | Null = null
  private var ended = false
  // The client's preface (RFC 9113 §3.4) comes before its first frame, unless it passed before the watch did
  private var prefaceLeft = Http2Watch.PrefaceLength
  // The client's bytes can't be read as frames (the watch came in partway through one): its head goes untimed
  private var blind = false
  private val reset: java.util.function.IntConsumer = stream =>
    val context = ctx.pipeline.context(http2)
    if context != null then http2.resetStream(context, stream, Http2Error.CANCEL.code, context.newPromise())

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    val decoder = http2.decoder
    decoder.frameListener(Http2Watch.Listener(decoder.frameListener, ledger))
    next = ctx.executor.schedule(this, tick, TimeUnit.NANOSECONDS)

  override def handlerRemoved(ctx: ChannelHandlerContext): Unit =
    if next != null then next.nn.cancel(false)
    ledger.close()

  /**
   * Takes what the layer knows that the watch did not see: the client's settings and the streams open, and whether its
   * preface passed too (`begun`: a connection handed over once its client's SETTINGS were read) or is still to come (an
   * h2c upgrade's, whose client sends it after the 101). On the connection's loop, once the watch is in place.
   */
  def adopt(begun: Boolean): Unit =
    if begun then prefaceLeft = 0
    floods.settingsReceived()
    val connection = http2.connection
    val flow = connection.remote.flowController
    ledger.adopt(flow.initialWindowSize.toLong, flow.windowSize(connection.connectionStream).toLong)
    connection.forEachActiveStream { stream =>
      ledger.opened(stream.id, flow.windowSize(stream).toLong)
      true
    }

  def run(): Unit =
    next = null
    if ctx.channel.isActive && !ended then
      val now = System.nanoTime()
      ledger.check(now, reset)
      if ledger.idle(now) then end(Http2Error.NO_ERROR, "Closing an idle HTTP/2 connection")
      else if headNanos > 0 && !blind && floods.blockPendingFor(headNanos) then
        val why = "Closing an HTTP/2 connection whose client has not sent its settings or ended a header block in time"
        end(Http2Error.NO_ERROR, why)
      else
        ctx.flush()
        next = ctx.executor.schedule(this, tick, TimeUnit.NANOSECONDS)

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    msg match
      case buf: ByteBuf if !blind => received(buf)
      case _ =>
    ctx.fireChannelRead(msg)

  override def write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise): Unit =
    msg match
      case buf: ByteBuf => sent(buf)
      case _ =>
    ctx.write(msg, promise)

  // The client's frames, for the head's deadline only: the layer holds the client to the floods' limits itself
  private def received(buf: ByteBuf): Unit =
    bytes.buf = buf
    val end = buf.writerIndex
    val skipped = math.min(prefaceLeft, end - buf.readerIndex)
    prefaceLeft -= skipped
    var at = buf.readerIndex + skipped
    while at < end && !blind do
      at = in.feed(bytes, at, end)
      if in.headerDone then
        in.headerDone = false
        if in.length > MaxFrameSize then blind = true else floods.begun(in)
      if in.done then
        floods.received(in)
        in.reset()

  private def sent(buf: ByteBuf): Unit =
    bytes.buf = buf
    var at = buf.readerIndex
    val end = buf.writerIndex
    while at < end do
      at = out.feed(bytes, at, end)
      out.headerDone = false
      if out.done then
        if floods.sent(out) && !ended then ctx.executor.execute(() => flooded())
        ledger.server(out)
        out.reset()

  private def flooded(): Unit =
    if !ended then end(Http2Error.ENHANCE_YOUR_CALM, "Closing an HTTP/2 connection past its reset limit")

  // GOAWAY, then closed from here: the handler's own close would wait for the open streams to end first
  private def end(code: Http2Error, why: String): Unit =
    ended = true
    Http2Watch.log.debug(why)
    val handlerContext = ctx.pipeline.context(http2)
    val closeNow: ChannelFutureListener = _ => ctx.close()
    if handlerContext == null then ctx.close()
    else
      val last = http2.connection.remote.lastStreamCreated
      http2
        .goAway(handlerContext, last, code.code, Unpooled.EMPTY_BUFFER, handlerContext.newPromise)
        .addListener(closeNow)
      handlerContext.flush()

private[rapier] object Http2Watch:
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[Http2Watch])
  private val PrefaceLength = 24

  /** The client's frames as the layer decodes them, told to the ledger on their way to the layer's own listener. */
  private final class Listener(listener: Http2FrameListener, ledger: Http2Ledger)
      extends Http2FrameListenerDecorator(listener):
    override def onHeadersRead(
        ctx: ChannelHandlerContext,
        streamId: Int,
        headers: Http2Headers,
        padding: Int,
        endOfStream: Boolean
    ): Unit =
      ledger.clientHeaders(streamId)
      super.onHeadersRead(ctx, streamId, headers, padding, endOfStream)

    override def onHeadersRead(
        ctx: ChannelHandlerContext,
        streamId: Int,
        headers: Http2Headers,
        streamDependency: Int,
        weight: Short,
        exclusive: Boolean,
        padding: Int,
        endOfStream: Boolean
    ): Unit =
      ledger.clientHeaders(streamId)
      super.onHeadersRead(ctx, streamId, headers, streamDependency, weight, exclusive, padding, endOfStream)

    override def onDataRead(
        ctx: ChannelHandlerContext,
        streamId: Int,
        data: ByteBuf,
        padding: Int,
        endOfStream: Boolean
    ): Int =
      ledger.clientData(data.readableBytes + padding)
      super.onDataRead(ctx, streamId, data, padding, endOfStream)

    override def onRstStreamRead(ctx: ChannelHandlerContext, streamId: Int, errorCode: Long): Unit =
      ledger.clientReset(streamId)
      super.onRstStreamRead(ctx, streamId, errorCode)

    override def onSettingsRead(ctx: ChannelHandlerContext, settings: Http2Settings): Unit =
      val window = settings.initialWindowSize
      if window != null then ledger.clientInitialWindow(window.longValue)
      super.onSettingsRead(ctx, settings)

    override def onWindowUpdateRead(ctx: ChannelHandlerContext, streamId: Int, windowSizeIncrement: Int): Unit =
      ledger.clientWindowUpdate(streamId, windowSizeIncrement)
      super.onWindowUpdateRead(ctx, streamId, windowSizeIncrement)
