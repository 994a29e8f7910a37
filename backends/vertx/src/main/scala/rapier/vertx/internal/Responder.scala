package rapier.vertx.internal

import io.netty.buffer.Unpooled
import io.netty.util.AsciiString
import io.vertx.core.Vertx
import io.vertx.core.http.{HttpMethod, HttpServerRequest, HttpServerResponse, HttpVersion}
import io.vertx.core.internal.buffer.BufferInternal
import org.slf4j.LoggerFactory
import rapier.model.{HeaderNames, StatusCode}
import rapier.nettyhttp.{DateHeader, Linger}
import rapier.server.spi.{RequestSyntax, ResponseRules, ResponseStream, WebSocketUpgrade}
import rapier.server.{Problem, ServerResponse}
import rapier.vertx.VertxServerOptions

/**
 * How Rapier's responses leave on Vert.x, one per server: the status and headers, the body from memory, from a file
 * or pulled from a stream, a WebSocket's upgrade; a refusal, which closes the connection after it, lingering so that
 * the client reads it; and what a request's streamed body decides about its connection once the response is sent.
 */
private[vertx] final class Responder(
    options: VertxServerOptions,
    connections: Connections,
    servesWebSockets: Boolean
):
  import Responder.log

  /**
   * Answers a request that can't be served, then closes the connection: what follows on it can't be trusted. Over
   * HTTP/2 only the request's stream ends, as streams are framed apart: reset once the answer is sent, if its client
   * is still sending (RFC 9113 §8.1).
   */
  def refuse(request: HttpServerRequest, reason: RequestSyntax.Invalid): Unit =
    if !Responder.http2(request) then connections.refuse(request.connection)
    write(request, options.serverOptions.problemRenderer(reason.problem), close = true)

  /**
   * Writes a response: its body from memory, from a file (Vert.x's `sendFile`, zero-copy; over HTTP/2 read a chunk
   * at a time), or pulled chunk by chunk ([[ResponseWriter]]). `body` is the request's streamed body, if any: let go once the response is sent, and unless
   * it arrived whole by then, the connection closes, lingering.
   */
  def write(
      request: HttpServerRequest,
      r: ServerResponse,
      close: Boolean,
      body: VertxBody | Null = null
  ): Unit =
    val response = request.response
    if r.webSocket != null then upgradeTo(request, r)
    else if !response.ended && !response.closed then
      if upgrading(request) then request.resume()
      // HTTP/2 has no `Connection: close`: a stream ends alone, the connection with a GOAWAY of Vert.x's
      val closing =
        (close || connections.draining || (body != null && !body.nn.keepsConnection)) && !Responder.http2(request)
      val streamed = r.stream
      val bodyless = request.method == HttpMethod.HEAD || !ResponseRules.hasContentLength(r.status)
      val length: Long =
        if streamed != null then streamed.nn.length else if r.body == null then 0L else r.body.nn.length.toLong
      head(response, r, length, closing)
      streamed match
        case null =>
          val bytes = r.body
          val ended =
            if length == 0 || bodyless then response.end()
            else response.end(BufferInternal.buffer(Unpooled.wrappedBuffer(bytes.nn)))
          finish(request, ended, close, body)
        case file: ResponseStream.File if !bodyless && Responder.http2(request) =>
          // Read as the stream's window takes it: Vert.x's sendFile reads ahead 16 chunks, which a client that opens
          // no window holds for as long as it likes
          stream(request, response, r, file.chunks, close, body)
        case file: ResponseStream.File if !bodyless =>
          val sent = response.sendFile(file.path.toString, file.offset, file.length)
          sent.onFailure(e => if !response.headWritten then failedBeforeHead(request, r, e, body))
          sent.onSuccess(_ => finish(request, sent, close, body))
        case chunks: ResponseStream.Chunks if !bodyless => stream(request, response, r, chunks, close, body)
        case other =>
          other.nn.abandon()
          finish(request, response.end(), close, body)

  private def stream(
      request: HttpServerRequest,
      response: HttpServerResponse,
      r: ServerResponse,
      chunks: ResponseStream.Chunks,
      close: Boolean,
      body: VertxBody | Null
  ): Unit =
    if chunks.length < 0 then response.setChunked(true)
    val done = new ResponseWriter.Done:
      def sent(ended: io.vertx.core.Future[Void]): Unit = finish(request, ended, close, body)
      def failedBeforeHead(cause: Throwable): Unit = Responder.this.failedBeforeHead(request, r, cause, body)
    ResponseWriter(response, Vertx.currentContext, chunks, done).begin()

  /** Whether a request may be a WebSocket's upgrade, its end then held until its answer is known. */
  def upgrading(request: HttpServerRequest): Boolean =
    servesWebSockets && request.headers.contains(HeaderNames.Upgrade)

  /**
   * A WebSocket's 101: Vert.x's handshake writes it, with the endpoint's headers beside its own, and the socket is
   * then the channel of the upgrade's relay ([[VertxWebSocket]]). A connection gone by then abandons the relay.
   */
  private def upgradeTo(request: HttpServerRequest, r: ServerResponse): Unit =
    val upgrade = r.webSocket.nn
    val response = request.response
    if response.ended || response.closed then upgrade.abandon()
    else
      val headers = response.headers
      var i = 0
      while i < r.headerCount do
        if !WebSocketUpgrade.isHandshakeHeader(r.headerName(i)) then headers.add(r.headerName(i), r.headerValue(i))
        i += 1
      val context = Vertx.currentContext
      request.toWebSocket().onComplete { result =>
        if result.succeeded then VertxWebSocket(result.result, upgrade, context, connections).begin()
        else upgrade.abandon()
      }

  /** The status and headers; `length` (≥ 0) as Content-Length where the status allows a body. */
  private def head(response: HttpServerResponse, r: ServerResponse, length: Long, closing: Boolean): Unit =
    response.setStatusCode(r.status)
    val headers = response.headers
    var i = 0
    while i < r.headerCount do
      headers.add(AsciiCache.headers(r.headerName(i)), AsciiCache.headers(r.headerValue(i)))
      i += 1
    if !headers.contains(DateHeader.Name) then headers.set(DateHeader.Name, DateHeader.now())
    if closing then headers.set(Responder.Connection, Responder.Close)
    // Content-Length from the body, also for HEAD, whose body is not sent.
    if ResponseRules.hasContentLength(r.status) && length >= 0 then
      headers.set(Responder.ContentLength, length.toString)
    else headers.remove(Responder.ContentLength)

  /**
   * The response is sent: a streamed request body is let go, and a closing connection lingers, then closes; over
   * HTTP/2, a stream whose client is still sending is reset with NO_ERROR instead.
   */
  private def finish(
      request: HttpServerRequest,
      ended: io.vertx.core.Future[Void],
      refused: Boolean,
      body: VertxBody | Null
  ): Unit =
    val unread = body != null && !body.nn.keepsConnection
    val http2 = Responder.http2(request)
    if body != null then
      if unread && !http2 then connections.refuse(request.connection)
      body.nn.discard()
    if refused || unread then ended.onComplete(_ => if http2 then stopReceiving(request) else linger(request))

  // RST_STREAM with NO_ERROR asks the client to stop sending without failing the response it has (RFC 9113 §8.1)
  private def stopReceiving(request: HttpServerRequest): Unit =
    if !request.isEnded then request.response.reset(0L)

  /** A body's source failed before anything was sent: the response becomes a 500. */
  private def failedBeforeHead(
      request: HttpServerRequest,
      r: ServerResponse,
      cause: Throwable,
      body: VertxBody | Null
  ) =
    log.error("A response body's source failed before the response started", cause)
    val response = request.response
    response.headers.clear()
    response.setChunked(false)
    val problem = Problem(StatusCode.InternalServerError, "The server failed to produce this response's body.")
    write(request, options.serverOptions.problemRenderer(problem), close = false, body)

  /** Closes after a refusal without losing the answer (see [[Linger]]): what is left of the body is read and dropped. */
  private def linger(request: HttpServerRequest): Unit =
    val drop = () =>
      if !request.isEnded then
        request.handler(_ => ())
        request.resume()
    if !Linger.thenClose(Connections.channel(request.connection), drop) then Connections.close(request.connection)

private[vertx] object Responder:
  private val log = LoggerFactory.getLogger(classOf[Responder])

  /** Whether `request` came over HTTP/2, where a refusal ends its stream rather than its connection. */
  def http2(request: HttpServerRequest): Boolean = request.version == HttpVersion.HTTP_2

  // The headers Rapier sets itself, in the case it writes them, as bytes (see `AsciiCache`)
  private val ContentLength = AsciiString.cached("Content-Length")
  private val Connection = AsciiString.cached("Connection")
  private val Close = AsciiString.cached("close")
