package rapier.server.spi

import rapier.model.{Header, StatusCode, Tokens}
import rapier.server.Problem

/**
 * The parts of an HTTP/1.1 request's syntax (RFC 9112, RFC 9110, RFC 3986) that backends' parsers leave to the code
 * above them. Each check answers null when the input is valid, or the [[RequestSyntax.Invalid]] status and message
 * to refuse it with. Messages never repeat the client's input.
 *
 * Backends call these from their request decoding, so that every backend refuses the same requests the same way.
 */
object RequestSyntax:
  /** Why a request is refused: the status to answer, the reason, and the headers the answer needs (`Retry-After`). */
  final case class Invalid(status: StatusCode, message: String, headers: List[Header] = Nil):
    /** The refusal as the problem a server answers with. */
    def problem: Problem = Problem(status, message, headers = headers)

  private def bad(message: String) = Invalid(StatusCode.BadRequest, message)

  val MissingHost: Invalid = bad("An HTTP/1.1 request needs a Host header")
  val DuplicateHost: Invalid = bad("A request has at most one Host header")
  val InvalidHost: Invalid = bad("The Host header is not a valid host and port")
  val HostDiffersFromAuthority: Invalid = bad("The Host header differs from the :authority")
  val ObsoleteFold: Invalid = bad("Header values may not be folded over several lines (obs-fold)")
  val UnsupportedCoding: Invalid =
    Invalid(StatusCode.NotImplemented, "Only the chunked transfer coding is supported")
  val UnsupportedVersion: Invalid =
    Invalid(StatusCode.HttpVersionNotSupported, "Only HTTP/1.1 and HTTP/1.0 are supported")
  val InvalidVersion: Invalid = bad("The request line's protocol version is not HTTP/<digit>.<digit>")
  val InvalidMethod: Invalid = bad("The request method is not a token")
  val InvalidSeparator: Invalid = bad("The request line's three parts are separated by one space each")
  val InvalidTargetChars: Invalid =
    bad("The request target contains a character that must be percent-encoded (space, control, non-ASCII or '#')")
  val InvalidTargetForm: Invalid = bad("The request target is neither a path, an absolute URI nor '*'")
  val AsteriskNotOptions: Invalid = bad("The request target '*' is only for OPTIONS")
  val InvalidFieldName: Invalid = bad("A header field's name is not a token")
  val InvalidFieldValue: Invalid = bad("A header field's value contains a control character")
  val DuplicateContentLength: Invalid = bad("A request has at most one Content-Length value")
  val BareLineEnd: Invalid = bad("Lines of a request head end with CRLF, not with a bare CR or LF")
  val LengthAndChunked: Invalid = bad("A request has a Content-Length or a Transfer-Encoding, not both")
  val InvalidTransferEncoding: Invalid =
    bad("Transfer-Encoding is one header, on HTTP/1.1 only, with chunked once and last")

  /**
   * Checks the protocol version of a request line. `HTTP/1.1` and `HTTP/1.0` are served; another well-formed version
   * is a 505; anything else is a 400.
   */
  def version(text: String): Invalid | Null =
    if text == "HTTP/1.1" || text == "HTTP/1.0" then null
    else if text.length == 8 && text.startsWith("HTTP/") && isDigit(text.charAt(5)) && text.charAt(6) == '.' &&
      isDigit(text.charAt(7))
    then UnsupportedVersion
    else InvalidVersion

  /** Checks a request method: a token (RFC 9110 §9.1). */
  def method(text: String): Invalid | Null = if Tokens.isToken(text) then null else InvalidMethod

  /**
   * Checks a request target: visible ASCII only, no fragment, and in origin form (`/path?query`), absolute form
   * (`http://host/path`) or, for `OPTIONS` only, asterisk form (`*`, RFC 9112 §3.2.4). Characters RFC 3986 reserves
   * but clients commonly send unencoded (`"<>\^`{|}`) are let through; what routing can't read is refused later, with
   * its own message.
   */
  def target(text: String, method: String): Invalid | Null =
    var i = 0
    while i < text.length do
      val c = text.charAt(i)
      if c <= ' ' || c >= 0x7f || c == '#' then return InvalidTargetChars
      i += 1
    if text.startsWith("/") || hasHttpScheme(text) then null
    else if text == "*" then if method == "OPTIONS" then null else AsteriskNotOptions
    else InvalidTargetForm

  private def hasHttpScheme(text: String): Boolean =
    text.regionMatches(true, 0, "http://", 0, 7) || text.regionMatches(true, 0, "https://", 0, 8)

  /**
   * Checks a Host header's value (RFC 9112 §3.2): `uri-host [":" port]`, or empty. The port, when given, is at most
   * 65535.
   */
  def host(value: String): Invalid | Null =
    val n = value.length
    var i = 0
    if n > 0 && value.charAt(0) == '[' then
      // IP-literal: hex digits, ':', '.', and an IPvFuture's unreserved and sub-delims.
      i = 1
      while i < n && value.charAt(i) != ']' do
        if !isHostChar(value.charAt(i)) && value.charAt(i) != ':' then return InvalidHost
        i += 1
      if i == n || i == 1 then return InvalidHost
      i += 1
    else
      while i < n && value.charAt(i) != ':' do
        if !isHostChar(value.charAt(i)) then return InvalidHost
        i += 1
    if i == n then null
    else if value.charAt(i) != ':' then InvalidHost
    else
      // The port: digits, possibly none, at most 65535.
      var port = 0
      var j = i + 1
      while j < n do
        val c = value.charAt(j)
        if !isDigit(c) then return InvalidHost
        port = port * 10 + (c - '0')
        if port > 65535 then return InvalidHost
        j += 1
      null

  /**
   * Checks an HTTP/2 request's `:authority` and the Host field beside it, if any: the authority a valid host, and a
   * Host that names the same (RFC 9113 §8.3.1).
   */
  def authority(authority: String, host: String | Null): Invalid | Null =
    val problem = RequestSyntax.host(authority)
    if problem != null then problem
    else if host != null && !host.nn.equalsIgnoreCase(authority) then HostDiffersFromAuthority
    else null

  /**
   * Checks a head's Host and Transfer-Encoding fields, once the backend has counted the Host fields: exactly one on
   * HTTP/1.1 (at most one otherwise), of valid syntax, and no coding but chunked in any Transfer-Encoding field.
   *
   * @param host
   *   the first Host field's value, or null when there is none
   * @param codings
   *   every Transfer-Encoding field's value (empty when there is none)
   */
  def head(hosts: Int, host: String | Null, http11: Boolean, codings: java.util.List[String]): Invalid | Null =
    if hosts > 1 then DuplicateHost
    else if hosts == 0 && http11 then MissingHost
    else
      var problem = if host == null then null else RequestSyntax.host(host.nn)
      var i = 0
      while problem == null && i < codings.size do
        problem = chunkedOnly(codings.get(i))
        i += 1
      problem

  /**
   * Checks a Transfer-Encoding field value whose final coding a backend has already found to be `chunked`, applied
   * once: any other coding in it is one this server does not implement (RFC 9112 §6.1: 501). Empty list elements
   * are allowed (RFC 9110 §5.6.1).
   */
  def chunkedOnly(value: String): Invalid | Null =
    var start = 0
    while start <= value.length do
      val comma = value.indexOf(',', start)
      val end = if comma < 0 then value.length else comma
      val element = value.substring(start, end).trim
      if element.nonEmpty && !element.equalsIgnoreCase("chunked") then return UnsupportedCoding
      start = end + 1
    null

  /**
   * Checks a header field as a lenient parser hands it over, for a backend that can't refuse it while parsing: a token
   * for its name (RFC 9110 §5.1), and in its value visible characters, spaces and tabs only (§5.5: no NUL, CR, LF or
   * other control character, no DEL).
   */
  def field(name: String, value: String): Invalid | Null =
    if !Tokens.isToken(name) then InvalidFieldName
    else
      var i = 0
      while i < value.length do
        val c = value.charAt(i)
        if (c < ' ' && c != '\t') || c == 0x7f then return InvalidFieldValue
        i += 1
      null

  /**
   * Checks how a head frames its body (RFC 9112 §6), for a backend whose parser lets through what a server must refuse:
   * at most one Content-Length field; Transfer-Encoding in one field, not on HTTP/1.0, with `chunked` applied once and
   * last (400), and no other coding (501). `codings` is every Transfer-Encoding field's value.
   */
  def framing(contentLengths: Int, codings: List[String], http10: Boolean): Invalid | Null =
    if contentLengths > 1 then DuplicateContentLength
    else
      codings match
        case Nil => null
        case List(value) if !http10 =>
          val elements = value.split(',').iterator.map(_.trim).filter(_.nonEmpty).toList
          val chunked = elements.count(_.equalsIgnoreCase("chunked"))
          if chunked != 1 || !elements.last.equalsIgnoreCase("chunked") then InvalidTransferEncoding
          else if elements.length > 1 then UnsupportedCoding
          else null
        case _ => InvalidTransferEncoding

  /** Whether an `Expect` value asks for `100 Continue` (HTTP/1.0 has no expectations, RFC 9110 §10.1.1). */
  def expectsContinue(expect: String | Null, http10: Boolean): Boolean =
    expect != null && !http10 && "100-continue".equalsIgnoreCase(expect.nn.trim)

  /** An `Expect` other than `100-continue` on HTTP/1.1: RFC 9110 §10.1.1 asks for a 417. */
  def unsupportedExpectation(expect: String | Null, http10: Boolean): Boolean =
    expect != null && !http10 && !"100-continue".equalsIgnoreCase(expect.nn.trim)

  private def isDigit(c: Char): Boolean = c >= '0' && c <= '9'

  // reg-name characters (RFC 3986 §3.2.2): unreserved, pct-encoded and sub-delims.
  private def isHostChar(c: Char): Boolean =
    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || "-._~%!$&'()*+,;=".indexOf(c) >= 0
