package rapier.netty.internal

import io.netty.buffer.ByteBuf
import io.netty.channel.{ChannelFuture, ChannelFutureListener, ChannelHandlerContext, ChannelInboundHandlerAdapter}
import io.netty.handler.codec.http.*
import io.netty.handler.codec.http2.Http2StreamChannel
import io.netty.util.ReferenceCountUtil
import org.slf4j.LoggerFactory
import rapier.netty.NettyServerOptions
import rapier.nettyhttp.{IdleWatch, InvalidRequest, Linger}
import rapier.server.spi.{Admission, EventLoop, Refusals, RequestBodyException, RequestSyntax, Runner, Running}
import rapier.server.{EndpointChain, ServerInterpreter, ServerResponse}

/**
 * Serves the HTTP/1.1 requests of one connection: one instance per channel, touched only by its event loop, so
 * its state needs no synchronization.
 *
 * Each request is routed as its head arrives, and the server's [[Admission]] decides what to do with it: refuse it,
 * or dispatch it to the interpreter once its body is complete, copied once into an array by the connection's
 * [[BodyBuffer]], or, when its endpoint reads the body as a stream, at once, the body then read from the connection only
 * as the logic pulls it ([[NettyBody]]).
 *
 * Responses leave in request order, by the connection's [[ResponseSender]]; what each one sent means for the connection
 * (kept open, closed, lingering) is decided here. Responses completed during a read burst are flushed once, at its end.
 *
 * Reading stops while the connection is [[full]]: as many requests as `maxPipelinedRequests` are being served or have
 * responses not yet written to the socket, or the socket takes no more (not writable). So a client that pipelines
 * requests and never reads their answers holds a few responses, and their files, never thousands; the decoder holds
 * what it has read meanwhile ([[RequestDecoder.Gate]]) and decodes it once there is room.
 */
private[netty] class HttpHandler[F[_]](
    interpreter: ServerInterpreter[F],
    runner: Runner[F],
    options: NettyServerOptions,
    connections: Connections,
    decoder: RequestSource,
    h2c: Http2Connection | Null = null
) extends ChannelInboundHandlerAdapter,
      RequestDecoder.Gate,
      EventLoop,
      ResponseSender.Connection,
      ReadDeadlines.Connection:
  import HttpHandler.*

  private var ctx: ChannelHandlerContext = null

  // The request being received, its view and the chain routing found for it (when routed at its head), and its body
  // so far: in `body`, or in `stream` when its endpoint streams it (it is then dispatched already).
  private var receiving: HttpRequest | Null = null
  private var receivingView: NettyRequest = null
  private var receivingChain: EndpointChain[F] | Null = null
  private var body: BodyBuffer = null
  private var stream: NettyBody | Null = null

  // The responses, in request order; how many requests are waiting for theirs, and how many responses are handed to
  // Netty but not yet written to the socket.
  private var responses: ResponseSender = null
  private var inFlight = 0
  private var unwritten = 0
  // Requests whose logic runs elsewhere and can be stopped (a fiber, a thread): stopped if the client goes away. A
  // list, not a set: it holds a few at most (the pipelined ones), and a set would allocate a node for each.
  private var running: java.util.ArrayList[Running] | Null = null

  private var reading = false
  private var flushPending = false

  // Set once a response says `Connection: close`: nothing more is read from this connection.
  private var closing = false
  // Set when a request was refused: the client may still be sending, so the connection lingers before it closes.
  private var refused = false

  private var deadlines: ReadDeadlines = null

  // The TLS of this connection (an HTTP/2 stream's is its connection's), looked up once: requests ask for it
  private var tls: io.netty.handler.ssl.SslHandler | Null = null

  // Closes the connection once idle for the idle timeout; null without one.
  private var idle: IdleWatch = null

  // An h2c upgrade is taken on the connection's first request only, and only an HTTP/1.1 one (RFC 9110 §7.8: an
  // Upgrade on HTTP/1.0 is ignored)
  private var mayUpgrade = h2c != null

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    body = BodyBuffer(connections.bodies, options.maxBodySize)
    val connection = if ctx.channel.isInstanceOf[Http2StreamChannel] then ctx.channel.parent else ctx.channel
    tls = connection.pipeline.get(classOf[io.netty.handler.ssl.SslHandler])
    // A file goes to the socket as it is unless TLS encrypts it or HTTP/2 frames it
    val zeroCopy = tls == null && decoder.isInstanceOf[RequestDecoder]
    responses = ResponseSender(ctx, this, options, connections, this, zeroCopy)
    deadlines = ReadDeadlines(ctx, options, decoder, this)
    decoder.gate = this
    val timeout = rapier.timeoutNanos(options.idleTimeout)
    // A stream's idleness is its connection's: an HTTP/2 connection has a watch of its own
    if timeout > 0 && decoder.isInstanceOf[RequestDecoder] then
      idle = IdleWatch(ctx, timeout, () => inFlight == 0 && receiving == null, () => ctx.close())
      idle.start()

  // Replaced by HTTP/2's handlers (an h2c upgrade, a client's preface): nothing more is done here.
  override def handlerRemoved(ctx: ChannelHandlerContext): Unit =
    closing = true
    if idle != null then idle.stop()

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    reading = true
    if idle != null then idle.touch()
    msg match
      // A body of declared length, as read (see RequestDecoder). A streamed body keeps arriving after its request was
      // dispatched, even one that closes the connection after.
      case bytes: ByteBuf =>
        try if stream != null || !closing then onContent(bytes, false)
        finally bytes.release()
      case request: HttpRequest =>
        try if !closing then onRequest(request)
        finally
          request match
            case content: HttpContent => content.release()
            case _ =>
      case content: HttpContent =>
        try
          if stream != null || !closing then
            if content.decoderResult.isFailure then badFraming()
            else onContent(content.content, content.isInstanceOf[LastHttpContent])
        finally content.release()
      case other => ReferenceCountUtil.release(other)

  override def channelReadComplete(ctx: ChannelHandlerContext): Unit =
    reading = false
    if flushPending then
      flushPending = false
      ctx.flush()
    if !closing && (receiving != null || decoder.headPendingSince != 0L) then deadlines.watch()

  def isClosing: Boolean = closing
  def readsBody: Boolean = receiving != null
  def streamedBody: NettyBody | Null = stream
  def headTimedOut(): Unit = refuse(Refusals.headTimeout(options.headerReadTimeout))

  def bodyTimedOut(): Unit =
    val timeout = Refusals.bodyTimeout(options.bodyReadTimeout)
    if stream != null then failStream(RequestBodyException(timeout))
    else
      discardBody()
      refuse(timeout)

  private def onRequest(request: HttpRequest): Unit =
    val decoded = request.decoderResult
    if decoded.isFailure then
      refuse(InvalidRequest.of(decoded.cause, options.maxInitialLineLength, options.maxHeaderSize))
    else
      val length = decoder.declaredLength
      // The coding matters only without a declared length (the decoder has looked it up when there is one).
      val chunked = length < 0 && decoder.bodyWithoutLength(request)
      if mayUpgrade then
        mayUpgrade = false
        if request.protocolVersion == HttpVersion.HTTP_1_1 && (length == 0L || length == -1L) && !chunked &&
          request.headers.contains(HttpHeaderNames.UPGRADE) && h2c.nn.upgrade(ctx, request)
        then return
      val view = NettyRequest(request, ctx.channel, tls)
      val chain = interpreter.routeOrNull(view)
      val http10 = request.protocolVersion == HttpVersion.HTTP_1_0
      val expect = request.headers.get(HttpHeaderNames.EXPECT)
      connections.admission.decide(chain, length, chunked, expect, http10, connections.draining) match
        case refusal: RequestSyntax.Invalid => refuse(refusal)
        case streamed: Admission.Streamed =>
          receive(request, view, chain)
          val continues = streamed.continues
          val sendContinue = () => if continues then ctx.writeAndFlush(continueResponse)
          val source =
            NettyBody(this, length, streamed.limit, connections.bodies, readBody, watchBody, sendContinue)
          stream = source
          view.source = source
          ctx.channel.config.setAutoRead(false)
          dispatch(request, view, chain, source)
        case read: Admission.ReadFirst =>
          receive(request, view, chain)
          if read.continues then ctx.writeAndFlush(continueResponse)
          body.begin(length, chunked)
        case Admission.NoBody =>
          // Dispatched at the end the decoder marks (its empty last content)
          receive(request, view, chain)
          body.begin(length, chunked)

  private def receive(request: HttpRequest, view: NettyRequest, chain: EndpointChain[F] | Null): Unit =
    receiving = request
    receivingView = view
    receivingChain = chain

  /** A piece of the body being received, `last` when it ends it. */
  private def onContent(bytes: ByteBuf, last: Boolean): Unit =
    val request = receiving
    if request == null then return
    if stream != null then return onStreamContent(stream.nn, bytes, last)
    val problem = body.add(bytes)
    if problem != null then
      discardBody()
      refuse(problem.nn)
    else if last then
      receivingView.body = body.take()
      val view = receivingView
      receiving = null
      receivingView = null
      deadlines.bodyDone()
      dispatch(request.nn, view, receivingChain, null)

  /** A chunked body's framing broke. */
  private def badFraming(): Unit =
    if receiving != null then
      if stream != null then failStream(RequestBodyException(Refusals.InvalidBodyFraming))
      else
        discardBody()
        refuse(Refusals.InvalidBodyFraming)

  /** A piece of a streamed body: queued for its reader, who has asked for it or soon will. */
  private def onStreamContent(source: NettyBody, bytes: ByteBuf, last: Boolean): Unit =
    source.arrived(bytes.retain())
    if last then
      source.completed()
      receiving = null
      receivingView = null
      stream = null
      resumeReading()
    else if source.isOver then endReceiving() // past the limit: the request is answered 413 and the connection closes

  /** A streamed body can't be read to its end: its reader is told, and the connection reads no more. */
  private def failStream(cause: RequestBodyException): Unit =
    stream.nn.failed(cause)
    endReceiving()

  // Nothing more is read from this connection: its streamed request will be answered, and the connection closed.
  private def endReceiving(): Unit =
    closing = true
    decoder.discardInput()
    receiving = null
    receivingView = null
    stream = null

  private def discardBody(): Unit =
    body.discard()
    receiving = null
    receivingView = null
    deadlines.bodyDone()
    val streamed = stream
    if streamed != null then
      // Its reader hears of it at once, and may answer the request before `failed` returns, which ends `stream`
      streamed.failed(RequestBodyException(Refusals.BodyCutShort))
      streamed.discard()
      stream = null

  // A streamed body's reading, started and stopped by its reader's pace; the body deadline while a pull waits.
  private val readBody: Boolean => Unit = on => if ctx.channel.isActive then ctx.channel.config.setAutoRead(on)
  private val watchBody: () => Unit = () => if ctx.channel.isActive then deadlines.watch()

  def inLoop: Boolean = ctx.executor.inEventLoop
  def execute(task: Runnable): Unit = ctx.executor.execute(task)

  private def dispatch(
      request: HttpRequest,
      view: NettyRequest,
      chain: EndpointChain[F] | Null,
      source: NettyBody | Null
  ): Unit =
    val sequence = responses.take()
    inFlight += 1
    val keepAlive = HttpUtil.isKeepAlive(request)
    if !keepAlive then closing = true
    val head = request.method eq HttpMethod.HEAD
    val version = request.protocolVersion
    runner.start(interpreter, view, chain) match
      case now: ServerResponse =>
        if source == null then responses.respond(sequence, now, keepAlive, head, version)
        else respondStreamed(sequence, source.nn, now, keepAlive, head, version)
      case later: Running =>
        if later.cancellable then
          if running == null then running = java.util.ArrayList(2)
          running.nn.add(later)
        // Completed elsewhere: back on this connection's event loop, which owns its state.
        later.onComplete(this) { r =>
          if running != null then running.nn.remove(later) // by identity: no `Running` defines equality
          if source == null then responses.respond(sequence, r, keepAlive, head, version)
          else respondStreamed(sequence, source.nn, r, keepAlive, head, version)
        }
    if full then ctx.channel.config.setAutoRead(false)

  /**
   * The answer to a request whose body was streamed: what its logic says, unless the body could not be read (then
   * 413, 400 or 408). Unless the body has arrived whole once the response is sent, the connection closes after it,
   * as the client may still be sending; what the reader still holds is let go then.
   */
  private def respondStreamed(
      sequence: Int,
      source: NettyBody,
      response: ServerResponse,
      keepAlive: Boolean,
      head: Boolean,
      version: HttpVersion
  ): Unit =
    val answer = source.answer(response, options.serverOptions.problemRenderer)
    responses.respond(sequence, answer, keepAlive, head, version, source)

  /** Answers a request that can't be served, then closes the connection: what follows on it can't be trusted. */
  private def refuse(reason: RequestSyntax.Invalid): Unit =
    closing = true
    refused = true
    decoder.discardInput()
    val sequence = responses.take()
    inFlight += 1
    val problem = options.serverOptions.problemRenderer(reason.problem)
    responses.respond(sequence, problem, keepAlive = false, head = false, HttpVersion.HTTP_1_1)

  def upgraded(): Unit =
    closing = true
    inFlight -= 1
    if idle != null then idle.stop()

  /**
   * A response is written (or its last part is on its way). A streamed request's body is let go now; unless it arrived
   * whole, the connection closes, lingering, as its client may still be sending.
   */
  def sent(future: ChannelFuture, keepAlive: Boolean, body: NettyBody | Null): Unit =
    inFlight -= 1
    var persistent = keepAlive
    if body != null then
      if !body.nn.keepsConnection then
        persistent = false
        refused = true
        if stream eq body then endReceiving()
      body.nn.discard()
    if idle != null then idle.touch()
    val last = !persistent || (connections.draining && inFlight == 0 && receiving == null)
    if last then
      closing = true
      future.addListener(if refused then lingerThenClose else ChannelFutureListener.CLOSE)
    else
      unwritten += 1
      future.addListener(written)
    if reading then flushPending = true else ctx.flush()
    resumeReading()

  // A response left for the socket: one fewer waiting (a listener made once, so that a response allocates none).
  private val written: ChannelFutureListener = future =>
    unwritten -= 1
    if future.isSuccess then resumeReading() else ctx.close()

  override def channelWritabilityChanged(ctx: ChannelHandlerContext): Unit =
    responses.writable()
    if ctx.channel.isWritable then resumeReading()
    ctx.fireChannelWritabilityChanged()

  def full: Boolean = inFlight + unwritten >= options.maxPipelinedRequests || !ctx.channel.isWritable

  /**
   * Turns auto-read back on, and has the decoder go on with what it holds, unless the connection is closing, full, or
   * streaming a body to its reader.
   */
  private def resumeReading(): Unit =
    if !closing && stream == null && !full then
      if !ctx.channel.config.isAutoRead then ctx.channel.config.setAutoRead(true)
      decoder.resume()

  /** Drains this connection for a graceful shutdown: closes it now if idle, else after its last response. */
  def drain(): Unit =
    if inFlight == 0 && receiving == null then ctx.close()

  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    discardBody()
    if running != null then
      // Its client is gone: what the logic would answer goes nowhere
      val stopping = running.nn.toArray(Array.empty[Running])
      running = null
      stopping.foreach(_.cancel())
    responses.stop()
    ctx.fireChannelInactive()

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
    // Mostly clients going away mid-request: nothing anyone can act on.
    log.debug("Closing a connection after an error", cause)
    ctx.close()

private[netty] object HttpHandler:
  private val log = LoggerFactory.getLogger(classOf[HttpHandler[?]])

  /**
   * Closes after a refusal without losing the answer (see [[Linger]]): what still arrives is read and discarded. An
   * HTTP/2 stream is reset instead, its connection kept.
   */
  private val lingerThenClose: ChannelFutureListener = future =>
    future.channel match
      case stream: Http2StreamChannel => Http2Exchange.stopReceiving(stream)
      case channel =>
        if !future.isSuccess || !Linger.thenClose(channel, () => channel.config.setAutoRead(true)) then channel.close()

  private def continueResponse = DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE)
