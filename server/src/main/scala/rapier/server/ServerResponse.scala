package rapier.server

import rapier.model.{Header, HeaderNames, StatusCode}

import java.nio.charset.StandardCharsets

/**
 * The response side of the backend SPI: what the interpreter hands the backend to write.
 *
 * Headers are kept as a flat array of names and values: one small allocation per response, and backends copy them
 * into their own structures without iterators. The body is bytes (or none), or a [[spi.ResponseStream]] — chunks to
 * pull, or a file — when it is not in memory; `Content-Length` is the backend's to set from either.
 */
final class ServerResponse private[rapier] (
    private var statusCode: Int,
    private var headerArray: Array[String],
    private var headerSize: Int,
    private var bodyBytes: Array[Byte] | Null
):
  // True while `headerArray` is an endpoint's precomputed headers, shared by its responses: copied before a change.
  private var sharedHeaders = false
  private var streamed: spi.ResponseStream | Null = null
  private var upgrade: spi.WebSocketUpgrade | Null = null

  /** The effect (an `F[Unit]`) that starts an effect module's stream body, until the interpreter has run it. */
  private[server] var streamStart: Any = null

  def status: Int = statusCode
  def body: Array[Byte] | Null = bodyBytes

  /** The body when it is not bytes in memory (then `body` is null): chunks to pull, or a file. */
  def stream: spi.ResponseStream | Null = streamed

  /** The WebSocket a 101 upgrades its connection to (see [[spi.WebSocketUpgrade]]), or null. */
  def webSocket: spi.WebSocketUpgrade | Null = upgrade
  def headerCount: Int = headerSize
  def headerName(i: Int): String = headerArray(2 * i)
  def headerValue(i: Int): String = headerArray(2 * i + 1)

  /** Whether a header is present (without allocating, unlike `header`). */
  def hasHeader(name: String): Boolean =
    var i = 0
    while i < headerSize do
      if headerArray(2 * i).equalsIgnoreCase(name) then return true
      i += 1
    false

  /** The first value of a header. */
  def header(name: String): Option[String] =
    var i = 0
    while i < headerSize do
      if headerArray(2 * i).equalsIgnoreCase(name) then return Some(headerArray(2 * i + 1))
      i += 1
    None

  def headers: List[Header] = List.tabulate(headerSize)(i => Header(headerName(i), headerValue(i)))

  /** A copy with one more header (the body is shared, not copied): for interceptors that add headers. */
  def withHeader(name: String, value: String): ServerResponse =
    require(rapier.model.Tokens.isToken(name), s"not a valid header name: '$name'")
    require(rapier.model.Tokens.isFieldValue(value), s"invalid characters in the value of header $name")
    val copy =
      new ServerResponse(statusCode, java.util.Arrays.copyOf(headerArray, 2 * headerSize + 2), headerSize, bodyBytes)
    copy.streamed = streamed
    copy.upgrade = upgrade
    copy.addHeader(name, value)
    copy

  /** A copy with another status code. */
  def withStatus(status: StatusCode): ServerResponse =
    val copy =
      new ServerResponse(status.code, java.util.Arrays.copyOf(headerArray, headerArray.length), headerSize, bodyBytes)
    copy.streamed = streamed
    copy.upgrade = upgrade
    copy

  /** A response that won't be sent (its client is gone): its stream's source is cancelled, its WebSocket's pipe ended. */
  def abandon(): Unit =
    if streamed != null then streamed.nn.abandon()
    if upgrade != null then upgrade.nn.abandon()

  /** The body as UTF-8 text (for tests and logs). */
  def bodyText: String = bodyBytes match
    case null => ""
    case bytes: Array[Byte] => new String(bytes, StandardCharsets.UTF_8)

  private[rapier] def setStatus(code: Int): Unit = statusCode = code
  private[rapier] def setBody(bytes: Array[Byte] | Null): Unit = bodyBytes = bytes
  private[rapier] def setWebSocket(u: spi.WebSocketUpgrade): Unit = upgrade = u
  private[rapier] def setStream(s: spi.ResponseStream): Unit =
    streamed = s
    bodyBytes = null

  /** A stream of unknown length takes the length its endpoint set as a `Content-Length` header, if one is valid. */
  private[rapier] def lengthFromHeader(): Unit = streamed match
    case chunks: spi.ResponseStream.Chunks if chunks.length < 0 =>
      header(HeaderNames.ContentLength).flatMap(_.trim.toLongOption).filter(_ >= 0) match
        case Some(n) => streamed = spi.ResponseStream.Chunks(chunks.source, n)
        case None => ()
    case _ => ()

  private[rapier] def addHeader(name: String, value: String): Unit =
    if sharedHeaders then own(2)
    if 2 * headerSize == headerArray.length then
      headerArray = java.util.Arrays.copyOf(headerArray, 2 * headerArray.length + 4)
    headerArray(2 * headerSize) = name
    headerArray(2 * headerSize + 1) = value
    headerSize += 1

  /** Replaces every value of a header by one (for a header the endpoint sets explicitly). */
  private[rapier] def setHeader(name: String, value: String): Unit =
    if sharedHeaders then own(2)
    var i = 0
    var found = false
    while i < headerSize do
      if headerArray(2 * i).equalsIgnoreCase(name) then
        if found then removeHeaderAt(i)
        else
          headerArray(2 * i + 1) = value
          found = true
          i += 1
      else i += 1
    if !found then addHeader(name, value)

  /**
   * Adds `field` to `Vary`, in the one `Vary` line there is (a cache that reads only the first line still sees every
   * field), unless it is there already or the line says `*`.
   */
  private[rapier] def addVary(field: String): Unit =
    var i = 0
    var at = -1
    while i < headerSize do
      if headerArray(2 * i).equalsIgnoreCase(HeaderNames.Vary) then
        if headerArray(2 * i + 1).split(',').exists(v => v.trim.equalsIgnoreCase(field) || v.trim == "*") then return
        if at < 0 then at = i
      i += 1
    if at < 0 then addHeader(HeaderNames.Vary, field)
    else
      if sharedHeaders then own(0)
      headerArray(2 * at + 1) = s"${headerArray(2 * at + 1)}, $field"

  /** Removes every value of a header. */
  private[rapier] def removeHeader(name: String): Unit =
    if sharedHeaders then own(0)
    var i = 0
    while i < headerSize do if headerArray(2 * i).equalsIgnoreCase(name) then removeHeaderAt(i) else i += 1

  /** Takes a copy of shared headers, with room for `extra` more entries. */
  private def own(extra: Int): Unit =
    headerArray = java.util.Arrays.copyOf(headerArray, 2 * headerSize + 2 * extra)
    sharedHeaders = false

  private def removeHeaderAt(i: Int): Unit =
    System.arraycopy(headerArray, 2 * i + 2, headerArray, 2 * i, 2 * (headerSize - i - 1))
    headerSize -= 1

  override def toString: String = s"ServerResponse($status, ${headers.mkString("[", ", ", "]")}, ${bodyBytes match
      case bytes: Array[Byte] => s"${bytes.length} bytes"
      case null if streamed != null => "a stream"
      case null => "no body"
    })"

object ServerResponse:
  /** A response from parts. */
  def apply(status: StatusCode, headers: Seq[Header] = Nil, body: Array[Byte] | Null = null): ServerResponse =
    val r = empty(status.code, headers.size)
    headers.foreach(h => r.addHeader(h.name, h.value))
    r.setBody(body)
    r

  /** A `text/plain` response with a message. */
  def text(status: StatusCode, message: String, headers: Header*): ServerResponse =
    val r = empty(status.code, 1 + headers.size)
    r.addHeader(HeaderNames.ContentType, "text/plain; charset=UTF-8")
    headers.foreach(h => r.addHeader(h.name, h.value))
    r.setBody(message.getBytes(StandardCharsets.UTF_8))
    r

  private[rapier] def empty(status: Int, expectedHeaders: Int): ServerResponse =
    new ServerResponse(status, new Array[String](2 * math.max(expectedHeaders, 1)), 0, null)

  /**
   * A response starting with `headers`, an endpoint's precomputed names and values, shared rather than copied:
   * most responses never add to them.
   */
  private[rapier] def sharing(status: Int, headers: Array[String]): ServerResponse =
    val r = new ServerResponse(status, headers, headers.length / 2, null)
    r.sharedHeaders = true
    r
