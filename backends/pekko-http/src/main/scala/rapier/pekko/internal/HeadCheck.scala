package rapier.pekko.internal

import org.apache.pekko.http.scaladsl.model.headers.{Host, RawHeader}
import org.apache.pekko.http.scaladsl.model.{HttpProtocols, HttpRequest}
import rapier.server.spi.RequestSyntax.Invalid
import rapier.server.spi.{RefusalMarker, Refusals, RequestSyntax}

/**
 * What Rapier refuses in a head that pekko-http's parser let through: a target that is not one (`RequestSyntax.target`
 * on the target as it came), names that are not tokens and control characters in values, a Content-Length or
 * Transfer-Encoding pekko-http could not read (it keeps such a field as a raw header, and frames the request as if
 * there were none), chunked framing on HTTP/1.0, a header section larger than `maxHeaderSize` in all (pekko-http bounds
 * each field, not their sum), an expectation other than `100-continue` — in one pass over the fields; over HTTP/2, a
 * Host that is not the :authority. What the parser has already lost or repaired (a bare LF taken for a line end, an
 * obs-fold unfolded, a repeated Content-Length of one value merged, chunk sizes with spaces) can't be seen here: the
 * kit declares it.
 */
private[pekko] object HeadCheck:
  def problem(view: PekkoRequest, maxHeader: Int, marker: RefusalMarker | Null): Invalid | Null =
    val marked = if marker == null then null else marker.nn.refusal(view.headerOrNull(RefusalMarker.Field))
    val target = if marked != null then marked else RequestSyntax.target(view.uri, view.request.method.value)
    if target != null then target
    else
      val problem = fields(view.request, maxHeader)
      if problem != null then problem else authority(view.request)

  // Over HTTP/2 the :authority (pekko-http's URI authority) and a Host field beside it must agree (RFC 9113 §8.3.1)
  private def authority(request: HttpRequest): Invalid | Null =
    if request.protocol != HttpProtocols.`HTTP/2.0` || request.uri.authority.isEmpty then null
    else RequestSyntax.authority(request.uri.authority.toString, request.header[Host].fold(null)(_.value))

  private def fields(request: HttpRequest, maxHeader: Int): Invalid | Null =
    val http10 = request.protocol == HttpProtocols.`HTTP/1.0`
    var size = 0
    var problem: Invalid | Null = null
    var expect: String | Null = null
    val it = request.headers.iterator
    while problem == null && it.hasNext do
      val field = it.next()
      if !PekkoRequest.isAdded(field) then
        val name = field.name
        val value = field.value
        // a field's line: name, ": ", value, CRLF
        size += name.length + value.length + 4
        problem = RequestSyntax.field(name, value)
        if problem == null then
          field match
            case raw: RawHeader if raw.is("content-length") => problem = Refusals.InvalidContentLength
            case raw: RawHeader if raw.is("transfer-encoding") => problem = RequestSyntax.InvalidTransferEncoding
            case _ => if expect == null && field.is("expect") then expect = value
    if problem != null then problem
    else if size > maxHeader then Refusals.headerTooLarge(maxHeader)
    else if http10 && request.entity.isChunked then RequestSyntax.InvalidTransferEncoding
    else if RequestSyntax.unsupportedExpectation(expect, http10) then Refusals.UnsupportedExpectation
    else null
