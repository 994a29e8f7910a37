package rapier.http4s.internal

import org.http4s.{HttpVersion, Request}
import org.typelevel.ci.CIString
import rapier.server.spi.RequestSyntax.Invalid
import rapier.server.spi.{RefusalMarker, Refusals, RequestSyntax}

/**
 * What Rapier refuses in a head that the http4s server before it parsed leniently (Ember lets through duplicate Host
 * and Content-Length fields, control characters in values, names that are not tokens, Transfer-Encoding on HTTP/1.0,
 * a fragment in the target): the checks of [[RequestSyntax]], on the request line and fields as http4s hands them
 * over, in one pass over the fields. What the parser has already lost (a bare LF taken for a line end, a chunk
 * extension) can't be seen here: the kit declares it. Requests made in memory (by an application, or its tests) are
 * not checked.
 */
private[http4s] object HeadCheck:
  private val Host = CIString("Host")
  private val ContentLength = CIString("Content-Length")
  private val TransferEncoding = CIString("Transfer-Encoding")
  private val Marked = CIString(RefusalMarker.Field)

  /**
   * The refusal for a request whose head breaks a rule, or null. `target` is the request target as rendered, the
   * limits those of Rapier's options: a request line over `maxLine` is a 414, a header section over `maxHeader` a 431.
   */
  def problem[F[_]](
      request: Request[F],
      target: String,
      maxLine: Int,
      maxHeader: Int,
      marker: RefusalMarker | Null
  ): Invalid | Null =
    val marked = if marker == null then null else refusalIn(request, marker.nn)
    if marked != null then marked
    // Not a request an application or its tests made in memory, which has no remote address
    else if request.remote.isEmpty then null
    else if request.httpVersion.major == 2 then http2(request, target, maxHeader)
    else if request.httpVersion.major != 1 then null
    // method, target and version, with their two spaces
    else if request.method.name.length + target.length + 10 > maxLine then Refusals.lineTooLong(maxLine)
    else
      val syntax = RequestSyntax.target(target, request.method.name)
      if syntax != null then syntax
      else fields(request, maxHeader)

  // An HTTP/2 request's parts against HTTP's rules, as an HTTP/1.1 head's: Ember's HTTP/2 layer has held it to its own
  // (pseudo-headers, lowercase names, connection-specific fields), and made a URI of its :path and :authority.
  private def http2[F[_]](request: Request[F], target: String, maxHeader: Int): Invalid | Null =
    val method = request.method.name
    var problem = RequestSyntax.method(method)
    if problem == null then problem = RequestSyntax.target(target, method)
    var host: String | Null = null
    var size = 0
    var rest = request.headers.headers
    while problem == null && rest.nonEmpty do
      val field = rest.head
      rest = rest.tail
      size += field.name.length + field.value.length + 4
      problem = RequestSyntax.field(field.name.toString, field.value)
      if field.name == Host && host == null then host = field.value
    if problem != null then problem
    else if size > maxHeader then Refusals.headerTooLarge(maxHeader)
    else
      val authority = Http4sRequest.authorityOf(request)
      if authority == null then null else RequestSyntax.authority(authority.nn, host)

  // The refusal a server's framing guard put in place of a malformed request, or null.
  private def refusalIn[F[_]](request: Request[F], marker: RefusalMarker): Invalid | Null =
    request.headers.headers.find(_.name == Marked) match
      case Some(field) => marker.refusal(field.value)
      case None => null

  private def fields[F[_]](request: Request[F], maxHeader: Int): Invalid | Null =
    var hosts = 0
    var host: String | Null = null
    var lengths = 0
    var codings: List[String] = Nil
    var size = 0
    var problem: Invalid | Null = null
    var rest = request.headers.headers
    while problem == null && rest.nonEmpty do
      val field = rest.head
      rest = rest.tail
      val name = field.name
      val value = field.value
      // a field's line: name, ": ", value, CRLF
      size += name.length + value.length + 4
      problem = RequestSyntax.field(name.toString, value)
      if name == Host then
        hosts += 1
        if host == null then host = value
      else if name == ContentLength then lengths += 1
      else if name == TransferEncoding then codings = value :: codings
    if problem != null then problem
    else if size > maxHeader then Refusals.headerTooLarge(maxHeader)
    else
      val http10 = request.httpVersion == HttpVersion.`HTTP/1.0`
      val framing = RequestSyntax.framing(lengths, codings, http10)
      if framing != null then framing
      else RequestSyntax.head(hosts, host, !http10, java.util.Collections.emptyList[String])
