package rapier.vertx.internal

import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.channel.ChannelHandlerContext
import io.netty.handler.codec.DecoderResult
import io.netty.handler.codec.http.{DefaultFullHttpRequest, HttpMethod, HttpRequest, HttpVersion}
import io.netty.util.concurrent.ScheduledFuture
import io.vertx.core.http.Http1ServerConfig
import io.vertx.core.http.impl.http1.VertxHttpRequestDecoder
import rapier.nettyhttp.{HeadScanner, InvalidRequest, StrictRequestLine}
import rapier.server.spi.Refusals

import java.util.concurrent.TimeUnit
import scala.concurrent.duration.Duration

/**
 * Vert.x's request decoder, refusing what Rapier's Netty backend refuses: a request line that isn't strictly one
 * ([[StrictRequestLine]]), obsolete line folding (RFC 9112 §5.2), a field with an empty name, and heads that take too
 * long. Vert.x's decoder (Netty's) joins a header line that starts with a space or tab into the previous
 * field's value: `Foo: bar` followed by ` Content-Length: 38` becomes one field `Foo`, which a proxy in front may have
 * read otherwise — a request-smuggling shape. A [[HeadScanner]] looks at each head's lines before they are parsed; a
 * folded head's request comes out with a failed decoder result whose cause is an [[InvalidRequest]], which Vert.x hands
 * to the server's invalid-request handler, where [[RequestHandler.invalid]] refuses it.
 *
 * A head must arrive within `headTimeout` of its first bytes (slowloris): one that has not is refused the same way,
 * with a request of the decoder's own carrying the 408, and what follows on the connection is not decoded. A head that
 * arrives in one read is never timed; one timer per connection at most, cancelled when the connection closes.
 *
 * It replaces Vert.x's own decoder in each connection's pipeline ([[Connections]]), with the same configuration.
 */
private[vertx] final class StrictRequestDecoder(config: Http1ServerConfig, headTimeout: Duration)
    extends VertxHttpRequestDecoder(config)
    with StrictRequestLine:
  private val head = HeadScanner()
  private val headNanos = rapier.timeoutNanos(headTimeout)
  // When the head now arriving was first seen incomplete (System.nanoTime), 0 when none is; the check, while armed
  private var headSince = 0L
  private var check: ScheduledFuture[?] | Null = null
  private var timedOut = false
  private var context: ChannelHandlerContext | Null = null

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    context = ctx
    super.handlerAdded(ctx)

  override protected def decode(ctx: ChannelHandlerContext, buffer: ByteBuf, out: java.util.List[AnyRef]): Unit =
    if timedOut then buffer.skipBytes(buffer.readableBytes)
    else
      head.scan(buffer)
      val before = out.size
      super.decode(ctx, buffer, out)
      head.follow(out, before, onHead)
      if headNanos > 0 && headSince == 0L && head.headStarted(buffer.isReadable) then
        headSince = System.nanoTime()
        if check == null then arm(headNanos)

  // A function made once: following each decoding step allocates nothing.
  private val onHead: HttpRequest => Unit = request =>
    headSince = 0L
    val problem = head.problem
    if problem != null && request.decoderResult.isSuccess then
      request.setDecoderResult(DecoderResult.failure(InvalidRequest(problem.nn)))

  private val onDeadline: Runnable = () =>
    check = null
    val ctx = context
    if ctx != null && ctx.channel.isActive && headSince != 0L && !timedOut then
      val left = headSince + headNanos - System.nanoTime()
      if left > 0 then arm(left)
      else
        timedOut = true
        val refused = DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/", Unpooled.EMPTY_BUFFER)
        refused.setDecoderResult(DecoderResult.failure(InvalidRequest(Refusals.headTimeout(headTimeout))))
        ctx.fireChannelRead(refused)
        ctx.fireChannelReadComplete()

  private def arm(nanos: Long): Unit =
    check = context.nn.executor.schedule(onDeadline, nanos, TimeUnit.NANOSECONDS)

  // Left scheduled, the check would hold the connection and all it references until its time
  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    disarm()
    super.channelInactive(ctx)

  override protected def handlerRemoved0(ctx: ChannelHandlerContext): Unit =
    disarm()
    super.handlerRemoved0(ctx)

  private def disarm(): Unit =
    val c = check
    if c != null then
      c.cancel(false)
      check = null
