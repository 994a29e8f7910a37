package rapier.netty.internal

import io.netty.buffer.{ByteBuf, ByteBufUtil, Unpooled}
import io.netty.channel.{Channel, ChannelHandler, ChannelHandlerContext, ChannelInitializer, ChannelPipeline}
import io.netty.handler.codec.ByteToMessageDecoder
import io.netty.handler.codec.http.*
import io.netty.handler.codec.http2.*
import io.netty.handler.ssl.{ApplicationProtocolNames, ApplicationProtocolNegotiationHandler}
import rapier.nettyhttp.Http2Watch
import rapier.server.Http2
import rapier.server.spi.Http2Stalls

import java.nio.charset.StandardCharsets
import java.util.Base64

/**
 * How a connection comes to speak HTTP/2, and what it is then: Netty's frame codec, holding the connection to the
 * [[Http2]] limits and to its own against floods, and a channel per stream, each serving its one request with an
 * [[Http2Exchange]] and an [[HttpHandler]], as an HTTP/1.1 connection serves its requests.
 *
 * A connection comes to it by ALPN on TLS ([[negotiation]]), by the client's preface on a plain one ([[preface]]), or
 * by an `Upgrade: h2c` request ([[upgrade]]).
 *
 * @param http1
 *   adds the HTTP/1.1 handlers at the pipeline's end
 * @param stream
 *   the handlers of one stream's channel: an [[Http2Exchange]] and the handler serving its request
 */
private[netty] final class Http2Connection(
    settings: Http2,
    maxHeaderSize: Int,
    idleNanos: Long,
    headNanos: Long,
    shutdownMillis: Long,
    http1: ChannelPipeline => Unit,
    stream: Channel => Unit
):
  private val initialSettings = Http2Settings
    .defaultSettings()
    .maxConcurrentStreams(settings.maxConcurrentStreams.toLong)
    .initialWindowSize(settings.initialWindowSize)
    .maxHeaderListSize(maxHeaderSize.toLong)

  private val stalls = Http2Stalls(settings.maxStalledStreams)

  private val streams = new ChannelInitializer[Channel]:
    override def initChannel(channel: Channel): Unit = stream(channel)

  /**
   * The frame codec of one connection. Netty's defaults against floods are kept, and stated: two empty DATA frames in
   * a row, 16 small CONTINUATION frames, 10,000 control frames (SETTINGS and PING acknowledgements, resets) queued for a
   * client that doesn't read, before it closes the connection; the resets a client may send per window are Rapier's.
   */
  private def codec(): Http2FrameCodec =
    Http2FrameCodecBuilder
      .forServer()
      .initialSettings(initialSettings)
      .validateHeaders(true)
      .decoderEnforceMaxConsecutiveEmptyDataFrames(2)
      .decoderEnforceMaxSmallContinuationFrames(16)
      .encoderEnforceMaxQueuedControlFrames(10_000)
      .decoderEnforceMaxRstFramesPerWindow(settings.maxResetsPerWindow, settings.resetWindowSeconds)
      .encoderEnforceMaxRstFramesPerWindow(settings.maxResetsPerWindow, settings.resetWindowSeconds)
      .gracefulShutdownTimeoutMillis(shutdownMillis)
      .build()

  /** Makes `pipeline` an HTTP/2 connection's, its handlers after `after` (at its end when null). */
  def install(pipeline: ChannelPipeline, after: String | Null): Http2FrameCodec =
    val frames = codec()
    val watch = new Http2Watch(frames, settings, stalls, idleNanos, headNanos)
    if after == null then pipeline.addLast("h2-watch", watch).addLast("h2", frames)
    else pipeline.addAfter(after, "h2-watch", watch).addAfter("h2-watch", "h2", frames)
    pipeline.addAfter("h2", "h2-streams", Http2MultiplexHandler(streams))
    pipeline.addAfter("h2-streams", "h2-errors", Http2Errors())
    frames

  /** After a TLS handshake: HTTP/2 if the client chose `h2` by ALPN, HTTP/1.1 otherwise. */
  def negotiation(): ChannelHandler =
    new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1):
      override def configurePipeline(ctx: ChannelHandlerContext, protocol: String): Unit =
        if protocol == ApplicationProtocolNames.HTTP_2 then install(ctx.pipeline, ctx.name)
        else http1(ctx.pipeline)

      // A client's failed handshake (plain HTTP, a version not allowed) is its own: one line at DEBUG, not a trace
      override def handshakeFailure(ctx: ChannelHandlerContext, cause: Throwable): Unit =
        Http2Errors.log.debug(s"A TLS handshake failed: $cause")
        ctx.close()

  /**
   * On a plain connection, before its HTTP/1.1 handlers: a client that opens with HTTP/2's preface (prior knowledge,
   * RFC 9113 §3.3) has them replaced by HTTP/2's; any other first bytes go on to them.
   */
  def preface(): ChannelHandler = Http2Connection.Preface(this, headNanos)

  /**
   * Switches a plain connection to HTTP/2 on an `Upgrade: h2c` request (RFC 7540 §3.2), if it is one this server
   * takes (the caller has checked that it is its connection's first, on HTTP/1.1, bodiless): with one valid
   * `HTTP2-Settings`. The 101 is written, the HTTP/1.1 handlers leave, and the request is served as stream 1. False,
   * having done nothing, for any other request.
   */
  def upgrade(ctx: ChannelHandlerContext, request: HttpRequest): Boolean =
    val clientSettings = Http2Connection.upgradeSettings(request)
    if clientSettings == null then false
    else
      val switching = DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS)
      switching.headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE)
      switching.headers.set(HttpHeaderNames.UPGRADE, Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME)
      ctx.writeAndFlush(switching)
      val pipeline = ctx.pipeline
      val frames = install(pipeline, "decoder")
      frames.onHttpServerUpgrade(clientSettings)
      pipeline.get(classOf[Http2Watch]).adopt(begun = false)
      val first = DefaultFullHttpRequest(
        HttpVersion.HTTP_1_1,
        request.method,
        request.uri,
        Unpooled.EMPTY_BUFFER,
        request.headers.copy(),
        EmptyHttpHeaders.INSTANCE
      )
      first.headers.setInt(
        HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text,
        Http2CodecUtil.HTTP_UPGRADE_STREAM_ID
      )
      InboundHttpToHttp2Adapter(frames.connection, frames.decoder.frameListener)
        .channelRead(pipeline.context(frames), first)
      Http2Connection.leaveHttp1(pipeline)
      true

private[netty] object Http2Connection:
  private val PrefaceBytes = Http2CodecUtil.connectionPrefaceBuf()

  /**
   * Takes the HTTP/1.1 handlers out, HTTP/2's being in place: the decoder last, as what it holds (the client's preface,
   * maybe) then goes on to the codec.
   */
  private def leaveHttp1(pipeline: ChannelPipeline): Unit =
    pipeline.remove("encoder")
    pipeline.remove("rapier")
    pipeline.remove("decoder")

  /**
   * Waits for as many first bytes as tell HTTP/2's preface from anything else, then leaves. A preface begun must be
   * whole within the head's deadline (`headNanos`), as a head must: the connection is closed past it.
   */
  private final class Preface(connection: Http2Connection, headNanos: Long) extends ByteToMessageDecoder:
    private var due: io.netty.util.concurrent.ScheduledFuture[?] | Null = null

    override protected def decode(ctx: ChannelHandlerContext, in: ByteBuf, out: java.util.List[AnyRef]): Unit =
      val n = math.min(in.readableBytes, PrefaceBytes.readableBytes)
      if !ByteBufUtil.equals(in, in.readerIndex, PrefaceBytes, 0, n) then ctx.pipeline.remove(this)
      else if n == PrefaceBytes.readableBytes then
        val pipeline = ctx.pipeline
        connection.install(pipeline, ctx.name)
        leaveHttp1(pipeline)
        pipeline.remove(this) // what it holds, the preface first, goes to the codec
      else if n > 0 && due == null && headNanos > 0 then
        val close: Runnable = () => ctx.close()
        due = ctx.executor.schedule(close, headNanos, java.util.concurrent.TimeUnit.NANOSECONDS)

    override protected def handlerRemoved0(ctx: ChannelHandlerContext): Unit =
      if due != null then due.nn.cancel(false)

  /** The client's settings of an `Upgrade: h2c` request this server takes, or null. */
  private def upgradeSettings(request: HttpRequest): Http2Settings | Null =
    val headers = request.headers
    val upgrade = headers.get(HttpHeaderNames.UPGRADE)
    val all = headers.getAll(Http2CodecUtil.HTTP_UPGRADE_SETTINGS_HEADER)
    if upgrade == null || all.size != 1 || !hasToken(upgrade, "h2c") then null
    else if !headers.containsValue(HttpHeaderNames.CONNECTION, Http2CodecUtil.HTTP_UPGRADE_SETTINGS_HEADER, true) then
      null
    else decodeSettings(all.get(0))

  private def hasToken(list: String, token: String): Boolean =
    list.split(',').exists(_.trim.equalsIgnoreCase(token))

  // The base64url payload of a SETTINGS frame: six bytes a setting (RFC 9113 §6.5.1)
  private def decodeSettings(value: String): Http2Settings | Null =
    val bytes =
      try Base64.getUrlDecoder.decode(value.trim.getBytes(StandardCharsets.US_ASCII))
      catch case _: IllegalArgumentException => return null
    if bytes.length % 6 != 0 then return null
    val settings = Http2Settings()
    var i = 0
    try
      while i < bytes.length do
        val id = ((bytes(i) & 0xff) << 8 | (bytes(i + 1) & 0xff)).toChar
        val value = (bytes(i + 2) & 0xffL) << 24 | (bytes(i + 3) & 0xffL) << 16 | (bytes(i + 4) & 0xffL) << 8 |
          (bytes(i + 5) & 0xffL)
        if id >= 1 && id <= 6 then settings.put(id, java.lang.Long.valueOf(value))
        i += 6
      settings
    catch case _: IllegalArgumentException => null

/** The end of an HTTP/2 connection's pipeline: the codec has answered a client's error already (GOAWAY, reset). */
private final class Http2Errors extends io.netty.channel.ChannelInboundHandlerAdapter:
  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
    Http2Errors.log.debug("An HTTP/2 connection's error", cause)

private object Http2Errors:
  val log = org.slf4j.LoggerFactory.getLogger(classOf[Http2Errors])
