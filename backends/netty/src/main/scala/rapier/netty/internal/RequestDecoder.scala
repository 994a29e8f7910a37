package rapier.netty.internal

import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.channel.ChannelHandlerContext
import io.netty.handler.codec.DecoderResult
import io.netty.handler.codec.http.*
import rapier.nettyhttp.{HeadScanner, InvalidRequest, StrictRequestLine}
import rapier.server.spi.RequestSyntax
import rapier.server.spi.RequestSyntax.Invalid

/**
 * Netty's HTTP/1.1 request decoder, made strict where Netty is lenient or leaves the decision to the code above it:
 * the request line ([[StrictRequestLine]]), no obsolete line folding, exactly one valid Host on HTTP/1.1, and no
 * transfer coding but chunked.
 *
 * A request that breaks a rule comes out with a failed decoder result whose cause is an [[InvalidRequest]], carrying
 * the status and message to refuse it with; [[HttpHandler]] then answers and closes the connection.
 *
 * Folding and Host are checked by a [[HeadScanner]], which looks at the head's lines before Netty parses them.
 *
 * A body of declared length is passed on as it was read, past Netty's content decoding: each read that holds only
 * body bytes goes on as the read's own buffer (Netty's decoder would slice it and wrap the slice in a content object),
 * one that holds the body's start or end as a slice of it; the end is marked by [[LastHttpContent.EMPTY_LAST_CONTENT]].
 * So [[HttpHandler]] receives a request, then `ByteBuf`s, then the empty last content; a chunked body comes as Netty's
 * contents.
 *
 * A head is decoded only while the [[RequestDecoder.Gate]] is open: while the connection is full, what was read stays
 * in the decoder's buffer, undecoded, until [[resume]].
 */
private[netty] final class RequestDecoder(config: HttpDecoderConfig)
    extends HttpRequestDecoder(config)
    with StrictRequestLine
    with RequestSource:
  // The head (request line and header section) being received.
  private val head = HeadScanner()
  // After a failure Netty discards what follows; so does this.
  private var failed = false
  private var discarding = false
  // When (System.nanoTime) the head now arriving was first seen incomplete; 0 when none is.
  private var headSince = 0L
  // The declared length of the last request decoded: -1 when none is declared, -2 when it can't be read.
  private var declared = -1L
  // How many bytes of the current request's body of declared length are still to be passed on, in pieces of at most
  // `maxChunk`, as Netty's decoder would.
  private var passing = 0L
  private val maxChunk = config.getMaxChunkSize

  var gate: RequestDecoder.Gate = RequestDecoder.Open
  private var context: ChannelHandlerContext | Null = null
  private var resuming = false
  // Decodes, on the connection's loop and outside any read, what was held while the gate was shut.
  private val resumeTask: Runnable = () =>
    resuming = false
    val ctx = context
    if ctx != null && internalBuffer.isReadable && !gate.full then
      channelRead(ctx, Unpooled.EMPTY_BUFFER)
      channelReadComplete(ctx)

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    context = ctx
    super.handlerAdded(ctx)

  /** The gate is open again: what was held is decoded, in a task of its own (never within a read, or a flush). */
  def resume(): Unit =
    if !resuming && !discarding && internalBuffer.isReadable then
      resuming = true
      context.nn.executor.execute(resumeTask)

  /**
   * When a head that has only partly arrived was first seen (`System.nanoTime`), or 0 when none has: what the
   * header-read deadline is measured from. A head that arrives whole in one read is never timed.
   */
  def headPendingSince: Long = headSince

  /** As Netty's decoder reads it: Content-Length, normalized; none with chunked. */
  def declaredLength: Long = declared

  def bodyWithoutLength(request: HttpRequest): Boolean = HttpUtil.isTransferEncodingChunked(request)

  /** Skips whatever arrives from now on, undecoded: the connection is closing after a refusal. */
  def discardInput(): Unit =
    discarding = true
    passing = 0L
    headSince = 0L

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    msg match
      // A read holding body bytes only, with nothing kept from the reads before: passed on whole, as it is.
      case read: ByteBuf if fitsBody(read.readableBytes) && !internalBuffer.isReadable =>
        passing -= read.readableBytes
        ctx.fireChannelRead(read)
        if passing == 0L then ctx.fireChannelRead(bodyPassed())
      case _ => super.channelRead(ctx, msg)

  private def fitsBody(n: Int): Boolean = n > 0 && n <= passing && n <= maxChunk

  override protected def decode(ctx: ChannelHandlerContext, buffer: ByteBuf, out: java.util.List[AnyRef]): Unit =
    if discarding then
      buffer.skipBytes(buffer.readableBytes)
      return
    if passing > 0L then
      // The body's start after its head, or its end before the next request: a slice of the read.
      val n = math.min(passing, math.min(buffer.readableBytes, maxChunk).toLong).toInt
      out.add(buffer.readRetainedSlice(n))
      passing -= n
      if passing == 0L then out.add(bodyPassed())
      return
    // Between requests, with the connection full: the bytes wait here until resumed.
    if head.betweenMessages && gate.full then return
    if !failed then head.scan(buffer)
    val before = out.size
    super.decode(ctx, buffer, out)
    head.follow(out, before, onHead)
    if headSince == 0L && !failed && head.headStarted(buffer.isReadable) then headSince = System.nanoTime()

  // A function made once: following each decoding step allocates nothing.
  private val onHead: HttpRequest => Unit = request =>
    headSince = 0L
    check(request)

  private def check(request: HttpRequest): Unit =
    declared = -1L
    if request.decoderResult.isFailure then failed = true
    else
      val problem = headProblem(request)
      if problem != null then
        failed = true
        request.setDecoderResult(DecoderResult.failure(InvalidRequest(problem.nn)))
      else
        declared =
          try HttpUtil.getContentLength(request, -1L)
          catch
            case _: NumberFormatException => -2L
        // As Netty's decoder decides: a declared length frames the body unless it is chunked. Netty's own reading of
        // it is skipped; its state is reset for the request that follows.
        if declared > 0L && !HttpUtil.isTransferEncodingChunked(request) then
          passing = declared
          reset()

  // The end of a body passed on: the next head starts.
  private def bodyPassed(): LastHttpContent =
    head.messageDecoded()
    LastHttpContent.EMPTY_LAST_CONTENT

  private def headProblem(request: HttpRequest): Invalid | Null =
    val lines = head.problem
    if lines != null then lines
    else
      val headers = request.headers
      val host = if head.hosts == 1 then headers.get(HttpHeaderNames.HOST) else null
      // Netty has already refused a final coding other than chunked, and chunked applied twice.
      val codings =
        if headers.contains(HttpHeaderNames.TRANSFER_ENCODING) then headers.getAll(HttpHeaderNames.TRANSFER_ENCODING)
        else java.util.Collections.emptyList[String]
      RequestSyntax.head(head.hosts, host, request.protocolVersion eq HttpVersion.HTTP_1_1, codings)

private[netty] object RequestDecoder:
  /** Whether a connection can take another request now. */
  trait Gate:
    def full: Boolean

  object Open extends Gate:
    def full: Boolean = false
