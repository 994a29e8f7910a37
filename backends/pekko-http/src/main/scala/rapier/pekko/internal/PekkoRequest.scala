package rapier.pekko.internal

import org.apache.pekko.http.scaladsl.model.headers.{`Raw-Request-URI`, `Timeout-Access`}
import org.apache.pekko.http.scaladsl.model.{
  AttributeKeys,
  ContentTypes,
  HttpEntity,
  HttpHeader,
  HttpMethod,
  HttpMethods,
  HttpRequest
}
import rapier.model.{Header, Method}
import rapier.server.spi.{BodySource, ServerRequest}

import java.net.InetSocketAddress

/**
 * Rapier's view of a pekko-http request: nothing computed until the interpreter asks. pekko-http keeps the framing
 * headers in the entity (its content type, length, chunking), not among the others: the view gives them back as the
 * headers they came as. The body is the one the backend read first ([[body]]), or a source over the entity's stream
 * ([[source]]) for an endpoint that streams it.
 */
private[pekko] final class PekkoRequest(val request: HttpRequest) extends ServerRequest:
  var body: Array[Byte] | Null = null
  var source: BodySource | Null = null
  private var target: String | Null = null

  val method: Method = PekkoRequest.methodOf(request.method)

  /**
   * The target as it came, from the `Raw-Request-URI` header pekko-http adds when asked to (the standalone server
   * does); else rendered from the parsed URI's path and raw query, which pekko-http may have normalised.
   */
  def uri: String =
    if target == null then
      target = request.header[`Raw-Request-URI`] match
        case Some(raw) => raw.uri
        case None =>
          val u = request.uri
          val path = if u.path.isEmpty then "/" else u.path.toString
          u.rawQueryString match
            case Some(q) => s"$path?$q"
            case None => path
    target.nn

  def protocol: String = request.protocol.value

  def headerOrNull(name: String): String | Null =
    if name.equalsIgnoreCase("Content-Type") then contentType
    else if name.equalsIgnoreCase("Content-Length") then contentLength
    else if name.equalsIgnoreCase("Transfer-Encoding") then transferEncoding
    else
      val it = request.headers.iterator
      var found: String | Null = null
      while found == null && it.hasNext do
        val h = it.next()
        if h.name.equalsIgnoreCase(name) && !PekkoRequest.isAdded(h) then found = h.value
      found

  def headerValues(name: String): List[String] =
    if PekkoRequest.isFraming(name) then
      val v = headerOrNull(name)
      if v == null then Nil else List(v.nn)
    else
      request.headers.iterator.filter(h => h.name.equalsIgnoreCase(name) && !PekkoRequest.isAdded(h)).map(
        _.value
      ).toList

  def headers: List[Header] =
    val own = request.headers.iterator.filterNot(PekkoRequest.isAdded).map(h => Header(h.name, h.value)).toList
    val framing = List(
      "Content-Type" -> contentType,
      "Content-Length" -> contentLength,
      "Transfer-Encoding" ->
        transferEncoding
    ).collect { case (n, v) if v != null => Header(n, v.nn) }
    own ++ framing

  override def peerCertificates: List[java.security.cert.X509Certificate] =
    request.attribute(Connections.TlsSession).fold(Nil)(rapier.server.Tls.peerCertificates)

  override def secure: Boolean = request.attribute(Connections.TlsSession).isDefined

  def remoteAddressOrNull: InetSocketAddress | Null = request.attribute(AttributeKeys.remoteAddress) match
    case Some(address) =>
      address.toIP match
        case Some(ip) => InetSocketAddress(ip.ip, ip.port.getOrElse(0))
        case None => null
    case None => null

  def bodyOrNull: Array[Byte] | Null = body

  override def bodySource: BodySource = if source != null then source.nn else super.bodySource

  /**
   * The request's content type, or null when it had none: pekko-http gives a body without one
   * `application/octet-stream`, the very value of `ContentTypes`, where a parsed header is a value of its own.
   */
  private def contentType: String | Null =
    val ct = request.entity.contentType
    if (ct eq ContentTypes.NoContentType) || (ct eq ContentTypes.`application/octet-stream`) then null
    else ct.value

  private def contentLength: String | Null = request.entity match
    case _: HttpEntity.Chunked => null
    case e => e.contentLengthOption.filter(_ > 0).map(_.toString).orNull

  private def transferEncoding: String | Null = if request.entity.isChunked then "chunked" else null

private[pekko] object PekkoRequest:
  /** pekko-http's standard methods are shared values: Rapier's own constants for them, so that routing compares by reference. */
  def methodOf(m: HttpMethod): Method =
    if m eq HttpMethods.GET then Method.GET
    else if m eq HttpMethods.POST then Method.POST
    else if m eq HttpMethods.HEAD then Method.HEAD
    else if m eq HttpMethods.PUT then Method.PUT
    else if m eq HttpMethods.DELETE then Method.DELETE
    else if m eq HttpMethods.PATCH then Method.PATCH
    else if m eq HttpMethods.OPTIONS then Method.OPTIONS
    else Method(m.value)

  /** The headers pekko-http keeps in the entity, not among the others: a request's and a response's alike. */
  def isFraming(name: String): Boolean =
    name.equalsIgnoreCase("Content-Type") || name.equalsIgnoreCase("Content-Length") ||
      name.equalsIgnoreCase("Transfer-Encoding")

  /** A header pekko-http adds itself (the raw target, the request timeout's handle), not one the client sent. */
  def isAdded(h: HttpHeader): Boolean = h.isInstanceOf[`Raw-Request-URI`] || h.isInstanceOf[`Timeout-Access`]
