package rapier.server.internal

import rapier.WebSocketOrigins
import rapier.model.{HeaderNames, StatusCode}
import rapier.server.spi.ServerRequest
import rapier.server.{Problem, ProblemRenderer, ServerResponse}

import java.nio.charset.StandardCharsets
import java.security.MessageDigest
import java.util.Base64

/**
 * The server's side of a WebSocket's opening handshake (RFC 6455 §4.2): a request to a WebSocket endpoint must ask
 * for the upgrade, in version 13, with a key, from a page the endpoint's [[WebSocketOrigins]] allow; the 101 answers
 * the key. Checked once the endpoint's own inputs are decoded (a refused credential is a 401 first), before its logic
 * runs.
 */
private[server] object WebSocketHandshake:
  private val Guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11".getBytes(StandardCharsets.US_ASCII)

  /** The `Sec-WebSocket-Accept` of a request that asks for the upgrade as it should, or why it is refused. */
  def accept(request: ServerRequest, render: ProblemRenderer, origins: WebSocketOrigins): String | ServerResponse =
    def refuse(status: StatusCode, detail: String): ServerResponse = render(Problem(status, detail))
    def upgradeRequired(detail: String): ServerResponse =
      refuse(StatusCode(426), detail)
        .withHeader(HeaderNames.Upgrade, "websocket")
        .withHeader(HeaderNames.Connection, "Upgrade")
    if request.protocol == "HTTP/1.0" then
      upgradeRequired("This endpoint is a WebSocket, which HTTP/1.0 can't upgrade to; use HTTP/1.1.")
    else if !hasToken(request.headerValues(HeaderNames.Upgrade), "websocket") then
      upgradeRequired("This endpoint is a WebSocket: the request must ask for the upgrade with `Upgrade: websocket`.")
    else if !hasToken(request.headerValues(HeaderNames.Connection), "upgrade") then
      refuse(StatusCode.BadRequest, "A WebSocket upgrade needs `Connection: Upgrade`.")
    else if hasBody(request) then
      // What follows the head would be read as frames
      refuse(StatusCode.BadRequest, "A WebSocket upgrade request has no body.")
    else
      val versions = request.headerValues("Sec-WebSocket-Version")
      if versions != List("13") then
        upgradeRequired("This WebSocket speaks version 13 (RFC 6455) only: `Sec-WebSocket-Version: 13`.")
          .withHeader("Sec-WebSocket-Version", "13")
      else
        request.headerValues("Sec-WebSocket-Key") match
          case List(_) if !allowed(request, origins) =>
            refuse(StatusCode.Forbidden, "This WebSocket can't be opened from the page's origin.")
          case List(key) if isKey(key.trim) => answer(key.trim)
          case Nil => refuse(StatusCode.BadRequest, "A WebSocket upgrade needs a `Sec-WebSocket-Key`.")
          case _ =>
            refuse(
              StatusCode.BadRequest,
              "`Sec-WebSocket-Key` must be one value: 16 random bytes in base64 (RFC 6455 §4.1)."
            )

  /** SHA-1 of the key and the protocol's GUID, in base64. */
  def answer(key: String): String =
    val sha1 = MessageDigest.getInstance("SHA-1")
    sha1.update(key.getBytes(StandardCharsets.US_ASCII))
    sha1.update(Guid)
    Base64.getEncoder.encodeToString(sha1.digest())

  /** Whether the request's `Origin` is one `origins` allows (see [[WebSocketOrigins]]). */
  def allowed(request: ServerRequest, origins: WebSocketOrigins): Boolean =
    val origin = request.headerValues(HeaderNames.Origin)
    origins match
      case WebSocketOrigins.Any => true
      case WebSocketOrigins.SameOrigin =>
        origin match
          case Nil => true
          case List(o) => sameAuthority(o.trim, request.headerOrNull(HeaderNames.Host))
          case _ => false
      case WebSocketOrigins.Only(allowed, requireOrigin) =>
        origin match
          case Nil => !requireOrigin
          case List(o) => allowed.exists(_.equalsIgnoreCase(o.trim))
          case _ => false

  /** Whether an origin (`scheme://host[:port]`) names the host and port of `host` (a Host field), default ports aside. */
  private def sameAuthority(origin: String, host: String | Null): Boolean =
    val at = origin.indexOf("://")
    host != null && at > 0 && {
      val scheme = origin.substring(0, at).toLowerCase(java.util.Locale.ROOT)
      val defaultPort = if scheme == "https" || scheme == "wss" then ":443" else ":80"
      def bare(authority: String) = authority.toLowerCase(java.util.Locale.ROOT).stripSuffix(defaultPort)
      bare(origin.substring(at + 3)) == bare(host.nn.trim)
    }

  private def hasBody(request: ServerRequest): Boolean =
    request.headerOrNull(HeaderNames.TransferEncoding) != null ||
      request.headerValues(HeaderNames.ContentLength).exists(_.trim != "0")

  private def isKey(key: String): Boolean =
    key.length == 24 && (
      try Base64.getDecoder.decode(key).length == 16
      catch case _: IllegalArgumentException => false
    )

  /** Whether a comma-separated header holds `token`, in any case. */
  private def hasToken(values: List[String], token: String): Boolean =
    values.exists(_.split(',').exists(_.trim.equalsIgnoreCase(token)))
