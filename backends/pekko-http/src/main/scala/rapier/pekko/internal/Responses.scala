package rapier.pekko.internal

import org.apache.pekko.http.scaladsl.model.headers.{Connection, RawHeader}
import org.apache.pekko.http.scaladsl.model.{
  AttributeKeys,
  ContentType,
  ContentTypes,
  HttpEntity,
  HttpHeader,
  HttpMethods,
  HttpResponse,
  ResponseEntity,
  StatusCode,
  StatusCodes
}
import org.apache.pekko.stream.scaladsl.{Flow, Source}
import org.apache.pekko.util.ByteString
import rapier.model.StatusCode as RapierStatus
import rapier.pekko.PekkoSourceBody
import rapier.server.ServerResponse
import rapier.server.spi.{ResponseRules, ResponseStream, WebSocketUpgrade, WebSocketWatch}

import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.{ExecutionContext, Future}

/**
 * Rapier's responses as pekko-http's. pekko-http keeps the framing headers in the entity: the response's
 * `Content-Type` becomes the entity's content type (parsed once per distinct value), its body a strict entity over the
 * very array, a stream an entity of pekko `Source` (with the length declared, when there is one, else chunked), and
 * pekko-http renders the rest — `Content-Length`, the HEAD response without its body, `Connection`. A response that
 * `closes` the connection (a refusal) says so, and pekko-http closes it after the response.
 *
 * A stream from a pekko `Source` body goes back as that very source; any other is pulled chunk by chunk, its first
 * chunk before the head, so that a source failing at once is a 500. A file is read a chunk at a time as pekko-http
 * takes them (`ResponseStream.File.chunks`): served by pekko's `FileIO`, a stream whose client stopped reading held 17
 * chunks of it (a heap dump's count).
 */
private[pekko] object Responses:
  private val Close = Connection("close")
  private val InternalServerError = ServerResponse.text(RapierStatus.InternalServerError, "Internal Server Error")
  private val contentTypes = ConcurrentHashMap[String, ContentType]()
  private val statuses = Array.tabulate[StatusCode | Null](600)(code => StatusCodes.getForKey(code).orNull)

  /** The response now when its body is in memory (or a file), else once a stream's first chunk is in. */
  def of(view: PekkoRequest, r: ServerResponse, closes: Boolean): Future[HttpResponse] =
    if r.webSocket != null then Future.successful(webSocket(view, r, null))
    else
      r.stream match
        case chunks: ResponseStream.Chunks if !skipsBody(view, r) && chunks.length != 0 =>
          PekkoSourceBody.takeSource(chunks.source) match
            case own: Source[ByteString, Any] @unchecked =>
              Future.successful(response(r, closes, streamed(contentTypeOf(r), chunks.length, own)))
            case null =>
              Pulls.next(chunks.source).transform {
                case scala.util.Success(head) =>
                  val body = head match
                    case Some(chunk) => Source.single(chunk).concat(Pulls.source(chunks.source))
                    case None =>
                      chunks.source.cancel()
                      Source.empty
                  scala.util.Success(response(r, closes, streamed(contentTypeOf(r), chunks.length, body)))
                case scala.util.Failure(_) =>
                  chunks.source.cancel()
                  scala.util.Success(response(InternalServerError, closes, strict(InternalServerError)))
              }(using ExecutionContext.parasitic)
        case _ => Future.successful(now(view, r, closes))

  /**
   * A WebSocket's 101, as pekko-http's handshake writes it, with the endpoint's other headers beside its own; the
   * connection is then the [[PekkoWebSocket]]'s. A request pekko-http does not take for an upgrade (it checks the
   * handshake as Rapier does: this is for the case it doesn't) is a 400, its relay let go. The WebSocket is counted in
   * `open` while it is.
   */
  def webSocket(view: PekkoRequest, r: ServerResponse, open: PekkoWebSocket.Open | Null): HttpResponse =
    val upgrade = r.webSocket.nn
    view.request.attribute(AttributeKeys.webSocketUpgrade) match
      case Some(handshake) =>
        val connection = view.request.attribute(Connections.Watching).orNull
        if connection != null then
          connection.webSocketWatch = WebSocketWatch(upgrade.output.in.text, upgrade.output.maxMessageSize)
        val protocol = r.header(Responses.Protocol)
        val switching = handshake.handleMessages(Flow.fromGraph(PekkoWebSocket(upgrade, open, connection)), protocol)
        val others = List.newBuilder[HttpHeader]
        var i = 0
        while i < r.headerCount do
          // The subprotocol is given to pekko-http's handshake, which writes it
          val name = r.headerName(i)
          if !WebSocketUpgrade.isHandshakeHeader(name) && !name.equalsIgnoreCase(Protocol) then
            others += header(name, r.headerValue(i))
          i += 1
        switching.withHeaders(switching.headers ++ others.result())
      case None =>
        upgrade.abandon()
        val refused = ServerResponse.text(RapierStatus.BadRequest, "The WebSocket upgrade could not be made.")
        response(refused, closes = true, strict(refused))

  /** A response whose body is in memory, a file, or not sent (HEAD, a status without content). */
  def now(view: PekkoRequest, r: ServerResponse, closes: Boolean): HttpResponse =
    r.stream match
      case null => response(r, closes, if allowsBody(r.status) then strict(r) else HttpEntity.Empty)
      case s if skipsBody(view, r) =>
        s.abandon()
        val entity =
          if !allowsBody(r.status) then HttpEntity.Empty else streamed(contentTypeOf(r), s.length, Source.empty)
        response(r, closes, entity)
      case file: ResponseStream.File =>
        if !Files.isReadable(file.path) then response(InternalServerError, closes, strict(InternalServerError))
        else
          response(r, closes, streamed(contentTypeOf(r), file.length, Pulls.source(file.keptChunks.source)))
      case empty =>
        // A stream declared empty
        empty.abandon()
        response(r, closes, HttpEntity.empty(contentTypeOf(r)))

  /**
   * A refusal that closes its connection only once `dropped` completes, while the rest of the request's body is read
   * and dropped: the response is sent at once, but pekko-http closes a connection as soon as a `Connection: close`
   * response's entity ends, and a connection closed with the client's bytes unread is reset, which may drop the
   * response before the client reads it. Its entity, sent whole at once, ends when `dropped` completes.
   */
  def closingOnceDropped(r: HttpResponse, dropped: Future[Unit]): HttpResponse =
    if dropped.isCompleted then r
    else
      r.entity match
        case strict: HttpEntity.Strict if strict.data.nonEmpty =>
          val end =
            dropped.transform(_ => scala.util.Success(Source.empty[ByteString]))(using ExecutionContext.parasitic)
          val held = Source.single(strict.data).concat(Source.futureSource(end))
          r.withEntity(HttpEntity.Default(strict.contentType, strict.data.length.toLong, held))
        case _ => r

  /** HEAD, and the statuses without content: the stream is let go, nothing of it sent. */
  private def skipsBody(view: PekkoRequest, r: ServerResponse): Boolean =
    (view.request.method eq HttpMethods.HEAD) || !allowsBody(r.status)

  /** 1xx, 204 and 304 have no content (`ResponseRules`' statuses without a Content-Length). */
  private def allowsBody(status: Int): Boolean = ResponseRules.hasContentLength(status)

  private def strict(r: ServerResponse): ResponseEntity =
    val body = r.body
    val ct = contentTypeOf(r)
    if body == null || body.length == 0 then
      if ct eq ContentTypes.NoContentType then HttpEntity.Empty
      else HttpEntity.empty(ct)
    else HttpEntity.Strict(ct, ByteString.fromArrayUnsafe(body))

  /** A streamed body: with its length when it has one (an empty one is sent as such), else chunked. */
  private def streamed(ct: ContentType, length: Long, body: Source[ByteString, Any]): ResponseEntity =
    if length > 0 then HttpEntity.Default(ct, length, body)
    else if length == 0 then HttpEntity.empty(ct)
    else HttpEntity.Chunked.fromData(ct, body)

  private def response(r: ServerResponse, closes: Boolean, entity: ResponseEntity): HttpResponse =
    HttpResponse(statusOf(r.status), headersOf(r, closes), entity)

  private def statusOf(code: Int): StatusCode =
    val known = if code >= 0 && code < statuses.length then statuses(code) else null
    if known != null then known.nn
    else StatusCodes.custom(code, "", "", isSuccess = code < 400, allowsEntity = allowsBody(code))

  /** The headers pekko-http takes as headers: every one but the framing, which the entity carries. */
  private def headersOf(r: ServerResponse, closes: Boolean): List[HttpHeader] =
    val headers = List.newBuilder[HttpHeader]
    var i = 0
    while i < r.headerCount do
      val name = r.headerName(i)
      if !PekkoRequest.isFraming(name) then headers += header(name, r.headerValue(i))
      i += 1
    if closes then headers += Close
    headers.result()

  /** A header as pekko-http renders it: as it is, but for those it renders itself only from their model. */
  private def header(name: String, value: String): HttpHeader =
    if name.equalsIgnoreCase("Connection") || name.equalsIgnoreCase("Date") || name.equalsIgnoreCase("Server") then
      HttpHeader.parse(name, value) match
        case HttpHeader.ParsingResult.Ok(h, _) => h
        case _ => RawHeader(name, value)
    else RawHeader(name, value)

  /** The response's content type, parsed once per distinct value (at most a few hundred kept); none if it has none. */
  private def contentTypeOf(r: ServerResponse): ContentType =
    r.header("Content-Type") match
      case None => ContentTypes.NoContentType
      case Some(value) =>
        val known = contentTypes.get(value)
        if known != null then known
        else
          val parsed = ContentType.parse(value).getOrElse(ContentTypes.NoContentType)
          if contentTypes.size < 256 then contentTypes.put(value, parsed)
          parsed

  private val Protocol = "Sec-WebSocket-Protocol"
