package rapier.netty.internal

import io.netty.buffer.Unpooled
import io.netty.handler.codec.http.*
import rapier.nettyhttp.DateHeader
import rapier.server.ServerResponse
import rapier.server.spi.ResponseRules

/** Rapier's responses as Netty's, by [[ResponseRules]]. */
private[netty] object NettyResponses:
  /**
   * The Netty response for a ready one. The body array is wrapped, not copied; Content-Length comes from it, also for
   * HEAD, whose body is not sent.
   */
  def of(r: ServerResponse, keepAlive: Boolean, head: Boolean, version: HttpVersion): FullHttpResponse =
    val bytes = r.body
    val length = if bytes == null then 0 else bytes.nn.length
    val content = if length == 0 || head then Unpooled.EMPTY_BUFFER else Unpooled.wrappedBuffer(bytes.nn)
    val response = DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status), content)
    fill(response, r, length, keepAlive, version)
    response

  /**
   * The head of a response whose body follows in parts: its length when known (`length` ≥ 0), else chunked, or, for
   * HTTP/1.0, delimited by the connection's close (`keepAlive` is then false).
   */
  def headOf(r: ServerResponse, length: Long, keepAlive: Boolean, version: HttpVersion): HttpResponse =
    val response = DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status))
    fill(response, r, length, keepAlive, version)
    if length < 0 && ResponseRules.hasContentLength(r.status) && version != HttpVersion.HTTP_1_0 then
      HttpUtil.setTransferEncodingChunked(response, true)
    response

  private def fill(response: HttpResponse, r: ServerResponse, length: Long, keepAlive: Boolean, version: HttpVersion) =
    val headers = response.headers
    var i = 0
    while i < r.headerCount do
      headers.add(r.headerName(i), r.headerValue(i))
      i += 1
    if !headers.contains(DateHeader.Name) then headers.set(DateHeader.Name, DateHeader.now())
    if ResponseRules.hasContentLength(r.status) && length >= 0 then headers.set(HttpHeaderNames.CONTENT_LENGTH, length)
    else headers.remove(HttpHeaderNames.CONTENT_LENGTH)
    val connection = ResponseRules.connectionHeader(keepAlive, version == HttpVersion.HTTP_1_0)
    if connection != null then headers.set(HttpHeaderNames.CONNECTION, connection)
