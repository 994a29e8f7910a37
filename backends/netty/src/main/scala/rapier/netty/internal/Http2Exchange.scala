package rapier.netty.internal

import io.netty.buffer.ByteBuf
import io.netty.channel.{ChannelDuplexHandler, ChannelHandlerContext, ChannelPromise}
import io.netty.handler.codec.DecoderResult
import io.netty.handler.codec.http.*
import io.netty.handler.codec.http2.*
import io.netty.util.{AsciiString, ReferenceCountUtil}
import rapier.nettyhttp.InvalidRequest
import rapier.server.spi.RequestSyntax

/**
 * One HTTP/2 stream's exchange as the HTTP/1.1 messages [[HttpHandler]] serves: the request's HEADERS frame becomes a
 * request, its DATA frames the body's bytes (as `ByteBuf`s, then the empty last content, as [[RequestDecoder]] passes a
 * body of declared length), and the response's head, contents and end become HEADERS and DATA frames. One instance per
 * stream, in the stream's own channel, touched only by the connection's event loop.
 *
 * Netty's codec has already held the frames to RFC 9113's rules it knows (pseudo-header order and names,
 * connection-specific fields, `content-length` against the DATA received, the header list's size); a request that
 * breaks a rule of HTTP's own, as an HTTP/1.1 head can (a method that is not a token, a path or authority that isn't
 * one, a control character in a value), is refused with the same problem as on HTTP/1.1.
 */
private[netty] final class Http2Exchange extends ChannelDuplexHandler, RequestSource:
  import Http2Exchange.*

  var gate: RequestDecoder.Gate = RequestDecoder.Open
  private var declared = -1L
  private var requested = false
  private var discarding = false

  def declaredLength: Long = declared
  def bodyWithoutLength(request: HttpRequest): Boolean = declared < 0
  def headPendingSince: Long = 0L // a HEADERS frame arrives whole, its CONTINUATIONs bounded by the codec
  def discardInput(): Unit = discarding = true
  def resume(): Unit = () // one request per stream: never held back

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    if discarding then ReferenceCountUtil.release(msg)
    else
      msg match
        case headers: Http2HeadersFrame =>
          if !requested then onRequest(ctx, headers)
          else if headers.isEndStream then ctx.fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT) // trailers
          else reset(ctx)
        case data: Http2DataFrame =>
          val content = data.content
          if content.isReadable then ctx.fireChannelRead(content) else content.release()
          if data.isEndStream then ctx.fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT)
        case other => ReferenceCountUtil.release(other)

  private def onRequest(ctx: ChannelHandlerContext, frame: Http2HeadersFrame): Unit =
    requested = true
    val h2 = frame.headers
    val method = h2.method
    val path = h2.path
    if method == null || path == null || h2.scheme == null then return reset(ctx) // CONNECT included: not served
    val methodName = method.toString
    val target = path.toString
    val headers = Http2Exchange.Headers.newHeaders()
    var problem = RequestSyntax.method(methodName)
    if problem == null then problem = RequestSyntax.target(target, methodName)
    var cookies: java.lang.StringBuilder | Null = null
    val fields = h2.iterator
    while fields.hasNext do
      val field = fields.next()
      val name = field.getKey
      if name.length > 0 && name.charAt(0) != ':' then
        val value = field.getValue.toString
        if problem == null then problem = RequestSyntax.field(name.toString, value)
        // Split cookies are joined into one field, as HTTP/1.1 carries them (RFC 9113 §8.2.3)
        if AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.COOKIE) then
          if cookies == null then cookies = java.lang.StringBuilder(value)
          else cookies.nn.append("; ").append(value)
        else headers.add(name, value)
    if cookies != null then headers.set(HttpHeaderNames.COOKIE, cookies.toString)
    val authority = h2.authority
    if authority != null then
      val host = headers.get(HttpHeaderNames.HOST)
      if problem == null then problem = RequestSyntax.authority(authority.toString, host)
      if host == null then headers.set(HttpHeaderNames.HOST, authority)
    // A refused request is never routed: Netty's request object, which checks its line's parts, holds safe ones
    val request =
      if problem == null then DefaultHttpRequest(Version, HttpMethod.valueOf(methodName), target, headers)
      else DefaultHttpRequest(Version, HttpMethod.GET, "/", headers)
    declared =
      if frame.isEndStream then 0L
      else
        try HttpUtil.getContentLength(request, -1L)
        catch case _: NumberFormatException => -2L
    if problem != null then request.setDecoderResult(DecoderResult.failure(InvalidRequest(problem.nn)))
    ctx.fireChannelRead(request)
    if frame.isEndStream && !discarding then ctx.fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT)

  // A request HTTP/2 itself calls malformed (RFC 9113 §8.1.1): the stream is reset, as its rules say
  private def reset(ctx: ChannelHandlerContext): Unit =
    discarding = true
    ctx.writeAndFlush(DefaultHttp2ResetFrame(Http2Error.PROTOCOL_ERROR))
    ctx.close()

  // A stream error the codec found (content-length against the DATA, a field it refuses): the stream is reset with
  // its code, where closing the stream's channel alone would say CANCEL.
  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
    cause match
      case error: Http2Exception =>
        discarding = true
        ctx.writeAndFlush(DefaultHttp2ResetFrame(error.error))
        ctx.fireExceptionCaught(cause)
      case _ => ctx.fireExceptionCaught(cause)

  override def write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise): Unit =
    msg match
      case response: FullHttpResponse =>
        val content = response.content
        val informational = response.status.codeClass == HttpStatusClass.INFORMATIONAL
        val headers = HttpConversionUtil.toHttp2Headers(response, false)
        if informational || !content.isReadable then
          content.release()
          ctx.write(DefaultHttp2HeadersFrame(headers, !informational), promise)
        else
          ctx.write(DefaultHttp2HeadersFrame(headers, false))
          ctx.write(DefaultHttp2DataFrame(content, true), promise)
      case response: HttpResponse =>
        ctx.write(DefaultHttp2HeadersFrame(HttpConversionUtil.toHttp2Headers(response, false), false), promise)
      case last: LastHttpContent =>
        val trailers = last.trailingHeaders
        if trailers.isEmpty then ctx.write(DefaultHttp2DataFrame(last.content, true), promise)
        else
          if last.content.isReadable then ctx.write(DefaultHttp2DataFrame(last.content, false))
          else last.content.release()
          ctx.write(DefaultHttp2HeadersFrame(HttpConversionUtil.toHttp2Headers(trailers, false), true), promise)
      case content: HttpContent => ctx.write(DefaultHttp2DataFrame(content.content, false), promise)
      case bytes: ByteBuf => ctx.write(DefaultHttp2DataFrame(bytes, false), promise)
      case other => ctx.write(other, promise)

private[netty] object Http2Exchange:
  /**
   * Ends a stream whose response is sent while its client may still be sending its body: RST_STREAM with NO_ERROR asks
   * the client to stop without failing the response it has (RFC 9113 §8.1). A stream ended both ways is closed already.
   */
  def stopReceiving(stream: Http2StreamChannel): Unit =
    if stream.isActive then
      stream.writeAndFlush(DefaultHttp2ResetFrame(Http2Error.NO_ERROR))
      stream.close()

  /** The protocol of a request that came over HTTP/2, as the interpreter and its logs see it. */
  val Version: HttpVersion = HttpVersion("HTTP", 2, 0, true)

  // Names are checked by the codec already, values by the exchange
  private val Headers = DefaultHttpHeadersFactory.headersFactory.withValidation(false)
