package rapier.netty.internal

import io.netty.buffer.ByteBuf
import io.netty.channel.{ChannelHandlerContext, ChannelInboundHandlerAdapter}
import io.netty.util.concurrent.FastThreadLocal
import rapier.server.spi.WebSocketWatch

/**
 * A text WebSocket's bytes through a [[WebSocketWatch]] before Netty's frame decoder reads them. The decoder hands a
 * frame over only once it is whole, so text that can't be UTF-8 would be refused at the end of a frame still arriving;
 * the watch refuses it at its first wrong byte. The bytes before the frame that broke a rule go on to the decoder, then
 * the breach, as an event the [[NettyWebSocket]] closes with; what the client sends after it is only followed, the
 * connection closed at the client's own close.
 */
private[netty] final class WatchedFrames(watch: WebSocketWatch) extends ChannelInboundHandlerAdapter:
  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = msg match
    case buf: ByteBuf if watch.broken == null =>
      val before = watch.keptRules
      WatchedFrames.feed(watch, buf)
      val breach = watch.broken
      if breach == null then ctx.fireChannelRead(buf)
      else
        val kept = (watch.keptRules - before).toInt
        val rest = if kept > 0 then buf.retainedSlice(buf.readerIndex, kept) else null
        buf.release()
        if rest != null then ctx.fireChannelRead(rest)
        ctx.fireUserEventTriggered(breach)
        if watch.clientClosed then ctx.close()
    case buf: ByteBuf =>
      try WatchedFrames.feed(watch, buf)
      finally buf.release()
      if watch.clientClosed then ctx.close()
    case other => ctx.fireChannelRead(other)

private[netty] object WatchedFrames:
  // A direct buffer's bytes are copied here, a piece at a time, for the watch to read
  private val scratch = new FastThreadLocal[Array[Byte]]:
    override def initialValue(): Array[Byte] = new Array[Byte](8192)

  private def feed(watch: WebSocketWatch, buf: ByteBuf): Unit =
    if buf.hasArray then watch.feed(buf.array, buf.arrayOffset + buf.readerIndex, buf.readableBytes)
    else
      val piece = scratch.get()
      var at = buf.readerIndex
      val end = buf.writerIndex
      while at < end do
        val n = math.min(piece.length, end - at)
        buf.getBytes(at, piece, 0, n)
        watch.feed(piece, 0, n)
        at += n
