package rapier.perf.vanilla

import io.netty.bootstrap.ServerBootstrap
import io.netty.buffer.Unpooled
import io.netty.channel.*
import io.netty.handler.codec.compression.StandardCompressionOptions
import io.netty.handler.ssl.{
  ApplicationProtocolConfig,
  ApplicationProtocolNames,
  ApplicationProtocolNegotiationHandler,
  OpenSsl,
  SslContextBuilder,
  SslProvider
}
import io.netty.handler.codec.http.*
import io.netty.handler.codec.http.websocketx.*
import io.netty.util.ReferenceCountUtil
import rapier.perf.common.{PerfApi, PerfServer, ServerConfig, Ticks, TlsFiles}

import java.nio.charset.StandardCharsets

/**
 * The suite's endpoints written directly on Netty: the fastest honest code one would write by hand. Requests are not
 * aggregated; a body is copied once, into an array of its Content-Length; routes are a hash map on the first path
 * segment; responses are flushed once per read burst. The same source is compiled against each Netty version the
 * suite uses (see `EventLoops`), so each version has the same vanilla twin. `directStyle`: see
 * [[VanillaNettySyncServer]].
 */
class VanillaNettyServer private[vanilla] (directStyle: Boolean) extends PerfServer:
  def this() = this(false)

  private var groups: EventLoopGroups = null
  private var channel: Channel = null

  def start(config: ServerConfig): Int =
    val routes = Routes(config.routes)
    val threads = if directStyle then VirtualThreads.factory() else null
    groups = EventLoops.create(config.threads)
    // Netty's TLS as Rapier sets it: OpenSSL's provider when tcnative loads, TLS 1.3 and 1.2, ALPN offering HTTP/1.1,
    // and h2 first with HTTP/2 on
    val alpn =
      if config.http2 then List(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
      else List(ApplicationProtocolNames.HTTP_1_1)
    val tls = config.tls.map { files =>
      SslContextBuilder
        .forServer(files.certificate.toFile, files.key.toFile)
        .sslProvider(if OpenSsl.isAvailable then SslProvider.OPENSSL else SslProvider.JDK)
        .protocols(TlsFiles.Protocols*)
        .applicationProtocolConfig(
          ApplicationProtocolConfig(
            ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
            alpn*
          )
        )
        .build()
    }
    channel = ServerBootstrap()
      .group(groups.boss, groups.workers)
      .channel(groups.serverChannel)
      .option(ChannelOption.SO_BACKLOG, Integer.valueOf(1024))
      .childOption(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
      .childHandler(new ChannelInitializer[Channel]:
        override def initChannel(ch: Channel): Unit =
          tls.foreach(context => ch.pipeline.addLast(context.newHandler(ch.alloc)))
          val codec = HttpServerCodec(
            HttpDecoderConfig().setMaxInitialLineLength(8192).setMaxHeaderSize(16384).setMaxChunkSize(65536)
          )
          if config.http2 && tls.isDefined then H2c.overTls(ch, codec, () => VanillaHandler(routes, threads))
          else if config.http2 then H2c.install(ch, codec, () => VanillaHandler(routes, threads))
          else ch.pipeline.addLast(codec)
          // Netty's own compression, set as Rapier's is: gzip or deflate at level 6, from 1 KiB
          if config.compression then
            ch.pipeline.addLast(
              HttpContentCompressor(
                1024,
                StandardCompressionOptions.gzip(6, 15, 8),
                StandardCompressionOptions.deflate(6, 15, 8)
              )
            )
          if !config.http2 then ch.pipeline.addLast(VanillaHandler(routes, threads)))
      .bind("0.0.0.0", config.port)
      .sync()
      .channel()
    channel.localAddress.asInstanceOf[java.net.InetSocketAddress].getPort

  /** One hash map holds every route. */
  def routeSets: Int = 1

  def stop(): Unit =
    if channel != null then channel.close().syncUninterruptibly()
    if groups != null then groups.shutdown()

/**
 * The same handler in direct style, as a Netty user writes it on JDK 21's virtual threads: each buffered request is
 * answered on a virtual thread of its own, started from the JDK's factory once its body is read, and the response is
 * handed back to the connection's loop, which writes and flushes it. A connection's buffered requests are answered one
 * at a time, in order (a pipelined request waits for the one before). Streamed uploads (`/pathStream{n}`), refusals of
 * a body over the limit, WebSockets and events stay on the loop, as in the bare handler, and are not ordered with them:
 * the catalogue runs this twin on none of them, nor on the file.
 */
final class VanillaNettySyncServer extends VanillaNettyServer(true)

/** `Thread.ofVirtual().factory()`, reached by reflection: the suite builds for JDK 17, virtual threads are JDK 21's. */
private object VirtualThreads:
  def factory(): java.util.concurrent.ThreadFactory =
    val builder =
      try classOf[Thread].getMethod("ofVirtual").invoke(null)
      catch
        case _: NoSuchMethodException =>
          throw UnsupportedOperationException(
            s"a virtual thread per request needs JDK 21 or newer; this JVM is ${System.getProperty("java.version")}"
          )
    Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder)
      .asInstanceOf[java.util.concurrent.ThreadFactory]

/** Route table: the first path segment (`path3`, `pathBytes3`, `pathJson3`) to what it serves. */
private final class Routes(count: Int):
  private val table = java.util.HashMap[String, Integer]()
  for n <- 0 until count do
    table.put(s"path$n", Routes.Text)
    table.put(s"pathBytes$n", Routes.Bytes)
    table.put(s"pathJson$n", Routes.Json)
    table.put(s"pathStream$n", Routes.Stream)
    table.put(s"pathFile$n", Routes.File)
  table.put("static", Routes.Static)

  /** The kind of the route whose first segment is `segment`, or -1. */
  def kind(segment: String): Int =
    val k = table.get(segment)
    if k == null then -1 else k.intValue

private object Routes:
  val Text = 0
  val Bytes = 1
  val Json = 2
  val Stream = 3
  val File = 4
  val Static = 5

  /** The first path segment of a request target. */
  def firstSegment(uri: String): String =
    val queryAt = uri.indexOf('?')
    val path = if queryAt < 0 then uri else uri.substring(0, queryAt)
    val second = path.indexOf('/', 1)
    if second < 0 then path.substring(1) else path.substring(1, second)

/**
 * One per connection: reads a request, copies its body once, answers. A body streamed to `/pathStream{n}` is not
 * copied at all: its chunks are counted as Netty's decoder hands them over, and released. With `threads`, a buffered
 * request is answered on a thread of theirs ([[VanillaNettySyncServer]]); without, on the loop.
 */
private final class VanillaHandler(routes: Routes, threads: java.util.concurrent.ThreadFactory | Null)
    extends ChannelInboundHandlerAdapter:
  private var request: HttpRequest = null
  private var body: Array[Byte] = null
  private var filled = 0
  private var streaming = false
  private var streamed = 0L
  private var flushPending = false

  /** Direct style: whether a request is being answered off the loop, and the requests read meanwhile. */
  private var busy = false
  private var waiting: java.util.ArrayDeque[Buffered] = null

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = msg match
    case r: HttpRequest if r.method == HttpMethod.GET && Routes.firstSegment(r.uri) == "ws" => upgrade(ctx, r)
    case r: HttpRequest if r.method == HttpMethod.GET && r.uri == "/sse/ts" =>
      ReferenceCountUtil.release(r)
      ctx.pipeline.replace(this, "events", VanillaEvents())
    case r: HttpRequest =>
      request = r
      val length = HttpUtil.getContentLength(r, 0L)
      streaming = r.method == HttpMethod.POST && routes.kind(Routes.firstSegment(r.uri)) == Routes.Stream
      streamed = 0L
      if streaming then ()
      else if length > PerfApi.MaxBodySize then
        send(ctx, text(HttpResponseStatus.valueOf(413), "too large", PerfApi.TextPlain), close = true)
        request = null
      else
        body = if length > 0 then new Array[Byte](length.toInt) else Array.emptyByteArray
        filled = 0
      r match
        case c: HttpContent => onContent(ctx, c)
        case _ =>
    case c: HttpContent => onContent(ctx, c)
    case other => ReferenceCountUtil.release(other)

  /**
   * `/ws/echo` and `/ws/ts` as Netty's documentation writes a WebSocket server: its handshaker (which gathers the
   * request's end itself) puts its frame codec in place of the HTTP one, and a handler of frames replaces this one.
   */
  private def upgrade(ctx: ChannelHandlerContext, r: HttpRequest): Unit =
    val handshaker = WebSocketServerHandshakerFactory(s"ws://localhost${r.uri}", null, false, 65536).newHandshaker(r)
    if handshaker == null then WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel)
    else
      val frames = if r.uri.startsWith("/ws/ts") then VanillaTicked(handshaker) else VanillaEcho(handshaker)
      ctx.pipeline.replace(this, "websocket", frames)
      handshaker.handshake(ctx.channel, r)

  private def onContent(ctx: ChannelHandlerContext, content: HttpContent): Unit =
    try
      if request != null && streaming then
        streamed += content.content.readableBytes
        if content.isInstanceOf[LastHttpContent] then
          val keepAlive = HttpUtil.isKeepAlive(request)
          request = null
          send(ctx, text(HttpResponseStatus.OK, PerfApi.ok(streamed), PerfApi.TextPlain), !keepAlive)
      else if request != null then
        val n = content.content.readableBytes
        if n > 0 && filled + n <= body.length then
          content.content.getBytes(content.content.readerIndex, body, filled, n)
          filled += n
        if content.isInstanceOf[LastHttpContent] then
          val r = request
          request = null
          if threads == null then send(ctx, answer(r, body, filled), !HttpUtil.isKeepAlive(r))
          else offLoop(ctx, Buffered(r, body, filled))
    finally content.release()

  override def channelReadComplete(ctx: ChannelHandlerContext): Unit = flushIfPending(ctx)

  private def flushIfPending(ctx: ChannelHandlerContext): Unit =
    if flushPending then
      flushPending = false
      ctx.flush()

  /** Answers `b` on a new thread, or after the request being answered if there is one; the loop writes the answer. */
  private def offLoop(ctx: ChannelHandlerContext, b: Buffered): Unit =
    if busy then
      if waiting == null then waiting = java.util.ArrayDeque()
      waiting.add(b)
    else
      busy = true
      threads.nn.newThread { () =>
        val response =
          try answer(b.request, b.body, b.filled)
          catch
            case scala.util.control.NonFatal(_) =>
              text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "error", PerfApi.TextPlain)
        ctx.executor.execute { () =>
          send(ctx, response, !HttpUtil.isKeepAlive(b.request))
          flushIfPending(ctx)
          busy = false
          if waiting != null && !waiting.isEmpty then offLoop(ctx, waiting.poll())
        }
      }.start()

  /** What a buffered request to the routes is answered with: a whole response, or the file. */
  private def answer(r: HttpRequest, body: Array[Byte], filled: Int): FullHttpResponse | SendFile =
    val uri = r.uri
    val queryAt = uri.indexOf('?')
    val path = if queryAt < 0 then uri else uri.substring(0, queryAt)
    val second = path.indexOf('/', 1)
    val first = if second < 0 then path.substring(1) else path.substring(1, second)
    val kind = routes.kind(first)
    val get = r.method == HttpMethod.GET
    val post = r.method == HttpMethod.POST
    if kind == Routes.Static && get && second > 0 then
      SendFile.statics.getOrElse(path.substring(second + 1), null) match
        case null => text(HttpResponseStatus.NOT_FOUND, "not found", PerfApi.TextPlain)
        case file: SendFile => file
    else if kind == Routes.Text && get && second > 0 then
      val id = path.substring(second + 1).toIntOption
      id match
        case Some(i) => text(HttpResponseStatus.OK, PerfApi.ok(i), PerfApi.TextPlain)
        case None => text(HttpResponseStatus.BAD_REQUEST, "bad id", PerfApi.TextPlain)
    else if second >= 0 then text(HttpResponseStatus.NOT_FOUND, "not found", PerfApi.TextPlain)
    else if kind == Routes.Text && post then
      val s = new String(body, 0, filled, StandardCharsets.UTF_8)
      text(HttpResponseStatus.OK, PerfApi.ok(s.length), PerfApi.TextPlain)
    else if kind == Routes.Bytes && post then text(HttpResponseStatus.OK, PerfApi.ok(filled), PerfApi.TextPlain)
    else if kind == Routes.File && get then SendFile.Suite
    else if kind == Routes.Json && get then
      bytes(HttpResponseStatus.OK, PayloadCodecs.order(), PerfApi.Json)
    else if kind == Routes.Json && post then
      PayloadCodecs.echo(body, filled) match
        case Some(json) => bytes(HttpResponseStatus.OK, json, PerfApi.Json)
        case None => text(HttpResponseStatus.BAD_REQUEST, "bad json", PerfApi.TextPlain)
    else text(HttpResponseStatus.NOT_FOUND, "not found", PerfApi.TextPlain)

  /** Writes an answer; a whole response is flushed at the end of the read burst, unless the connection closes. */
  private def send(ctx: ChannelHandlerContext, answer: FullHttpResponse | SendFile, close: Boolean): Unit =
    answer match
      case file: SendFile => sendFile(ctx, file, close)
      case response: FullHttpResponse =>
        if close then
          response.headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
          ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE)
        else
          ctx.write(response)
          flushPending = true

  /** The file, zero-copy: its region handed to the socket (`sendfile`), never read into the heap. */
  private def sendFile(ctx: ChannelHandlerContext, send: SendFile, close: Boolean): Unit =
    val file = java.io.RandomAccessFile(send.path.toFile, "r")
    val length = file.length
    val head = DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK)
    head.headers.set(HttpHeaderNames.CONTENT_TYPE, send.contentType)
    head.headers.set(HttpHeaderNames.CONTENT_LENGTH, length)
    if close then head.headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
    ctx.write(head)
    ctx.write(DefaultFileRegion(file.getChannel, 0, length))
    val last = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
    if close then last.addListener(ChannelFutureListener.CLOSE)

  private def text(status: HttpResponseStatus, text: String, contentType: String): FullHttpResponse =
    bytes(status, text.getBytes(StandardCharsets.UTF_8), contentType)

  private def bytes(status: HttpResponseStatus, bytes: Array[Byte], contentType: String): FullHttpResponse =
    val response = DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes))
    response.headers.set(HttpHeaderNames.CONTENT_TYPE, contentType)
    response.headers.set(HttpHeaderNames.CONTENT_LENGTH, bytes.length)
    response

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = ctx.close()

/** A request whose body is read, waiting for its connection's request before it to be answered. */
private final class Buffered(val request: HttpRequest, val body: Array[Byte], val filled: Int)

/** An answer that is a file, sent zero-copy by the connection's loop. */
private final class SendFile(val path: java.nio.file.Path, val contentType: String)

private object SendFile:
  /** The file of `/pathFile{n}`. */
  lazy val Suite: SendFile = SendFile(PerfApi.file, "application/octet-stream")

  /** The files of `/static/{name}`, by name: a hand-written file service knows the few it serves. */
  lazy val statics: Map[String, SendFile] = Map(
    PerfApi.StaticSmall -> SendFile(PerfApi.staticDirectory.resolve(PerfApi.StaticSmall), "text/css; charset=UTF-8"),
    PerfApi.StaticLarge -> SendFile(PerfApi.staticDirectory.resolve(PerfApi.StaticLarge), "application/octet-stream")
  )

/** What both WebSocket handlers do with control frames: pings answered, a close echoed. */
private abstract class VanillaFrames(handshaker: WebSocketServerHandshaker) extends ChannelInboundHandlerAdapter:
  protected def text(ctx: ChannelHandlerContext, frame: TextWebSocketFrame): Unit

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = msg match
    case t: TextWebSocketFrame => text(ctx, t)
    case ping: PingWebSocketFrame => ctx.writeAndFlush(PongWebSocketFrame(ping.content))
    case close: CloseWebSocketFrame => handshaker.close(ctx.channel, close)
    case other => ReferenceCountUtil.release(other)

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = ctx.close()

/** `/ws/echo`: each text message written back as it came, flushed once per read burst. */
private final class VanillaEcho(handshaker: WebSocketServerHandshaker) extends VanillaFrames(handshaker):
  protected def text(ctx: ChannelHandlerContext, frame: TextWebSocketFrame): Unit = ctx.write(frame)
  override def channelReadComplete(ctx: ChannelHandlerContext): Unit = ctx.flush()

/**
 * `/ws/ts`, the seed's throttled stream: each text message is answered on the next tick of [[Ticks]] with the time
 * then, taken on the clock's thread and written on the connection's.
 */
private final class VanillaTicked(handshaker: WebSocketServerHandshaker) extends VanillaFrames(handshaker), Runnable:
  private val waiting = java.util.concurrent.atomic.AtomicInteger()
  private var ctx: ChannelHandlerContext = null

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    Ticks.add(this)

  override def handlerRemoved(ctx: ChannelHandlerContext): Unit = Ticks.remove(this)
  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    Ticks.remove(this)
    ctx.fireChannelInactive()

  protected def text(ctx: ChannelHandlerContext, frame: TextWebSocketFrame): Unit =
    frame.release()
    waiting.incrementAndGet()

  def run(): Unit =
    val n = waiting.getAndSet(0)
    if n > 0 then
      val stamp = Ticks.stamp()
      ctx.executor.execute { () =>
        for _ <- 1 to n do ctx.write(TextWebSocketFrame(stamp))
        ctx.flush()
      }

/**
 * `/sse/ts`: a chunked `text/event-stream` response with an event at every tick of [[Ticks]], its data the time then,
 * taken on the clock's thread and written on the connection's. What the client sends after the request is dropped.
 */
private final class VanillaEvents extends ChannelInboundHandlerAdapter, Runnable:
  private var ctx: ChannelHandlerContext = null

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    val head = DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK)
    head.headers
      .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream")
      .set(HttpHeaderNames.CACHE_CONTROL, "no-cache")
      .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED)
    ctx.writeAndFlush(head)
    Ticks.add(this)

  override def handlerRemoved(ctx: ChannelHandlerContext): Unit = Ticks.remove(this)
  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    Ticks.remove(this)
    ctx.fireChannelInactive()

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = ReferenceCountUtil.release(msg)
  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = ctx.close()

  def run(): Unit =
    val event = s"data: ${Ticks.stamp()}\n\n"
    ctx.executor.execute { () =>
      ctx.writeAndFlush(DefaultHttpContent(Unpooled.copiedBuffer(event, StandardCharsets.US_ASCII)))
    }

/**
 * h2c as Netty's documentation sets it up: its cleartext upgrade handler takes a client's preface (prior knowledge) or
 * an `Upgrade: h2c` to its frame codec and a channel per stream, where its stream codec turns the frames into the
 * HTTP/1.1 messages the same handler serves; any other connection stays HTTP/1.1.
 */
private object H2c:
  import io.netty.handler.codec.http2.*

  private val settings = Http2Settings.defaultSettings().maxConcurrentStreams(100L)
  private def frames() = Http2FrameCodecBuilder.forServer().initialSettings(settings).build()
  private def streams(handler: () => ChannelHandler) = new ChannelInitializer[Channel]:
    override def initChannel(stream: Channel): Unit =
      stream.pipeline.addLast(Http2StreamFrameToHttpObjectCodec(true))
      stream.pipeline.addLast(handler())

  /** h2 by ALPN after the TLS handshake, HTTP/1.1 otherwise, as Netty's ALPN example sets it up. */
  def overTls(ch: Channel, codec: HttpServerCodec, handler: () => ChannelHandler): Unit =
    ch.pipeline.addLast(new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1):
      override def configurePipeline(ctx: ChannelHandlerContext, protocol: String): Unit =
        if protocol == ApplicationProtocolNames.HTTP_2 then
          ctx.pipeline.addLast(frames()).addLast(Http2MultiplexHandler(streams(handler)))
        else ctx.pipeline.addLast(codec).addLast(handler()))

  def install(ch: Channel, codec: HttpServerCodec, handler: () => ChannelHandler): Unit =
    val streams = H2c.streams(handler)
    val upgrades: HttpServerUpgradeHandler.UpgradeCodecFactory = protocol =>
      if io.netty.util.AsciiString.contentEquals(protocol, Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME) then
        Http2ServerUpgradeCodec(frames(), Http2MultiplexHandler(streams))
      else null
    // In the initializer's place, before the HTTP/1.1 handler
    val h2 = new ChannelInitializer[Channel]:
      override def initChannel(c: Channel): Unit =
        val here = c.pipeline.context(this).name
        c.pipeline.addAfter(here, "h2", frames()).addAfter("h2", "h2-streams", Http2MultiplexHandler(streams))
    ch.pipeline.addLast(
      CleartextHttp2ServerUpgradeHandler(codec, HttpServerUpgradeHandler(codec, upgrades), h2)
    )
    ch.pipeline.addLast(handler())
