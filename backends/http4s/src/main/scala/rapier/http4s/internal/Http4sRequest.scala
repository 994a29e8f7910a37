package rapier.http4s.internal

import cats.effect.SyncIO
import org.http4s.{HttpVersion, Method as H4Method, Request}
import org.typelevel.vault.Key
import org.typelevel.ci.CIString
import rapier.model.{Header, Method}
import rapier.server.spi.{BodySource, ServerRequest}

import java.net.InetSocketAddress

/**
 * Rapier's view of an http4s request: nothing computed until the interpreter asks. The body is the one the backend read
 * first ([[body]]), or a stream handed over as a source ([[source]]) for an endpoint that streams it.
 */
private[http4s] final class Http4sRequest[F[_]](val request: Request[F]) extends ServerRequest:
  var body: Array[Byte] | Null = null
  var source: BodySource | Null = null
  // Drains what of the request's body no one read, after the response (see Responses); null when nothing can be left
  var drain: F[Unit] | Null = null
  // The server's builder of WebSocket responses, where it has one
  var webSockets: org.http4s.server.websocket.WebSocketBuilder2[F] | Null = null
  private var target: String | Null = null
  private var length = Http4sRequest.NotParsed

  val method: Method = Http4sRequest.methodOf(request.method)

  // Ember makes an HTTP/2 request's URI of its :scheme, :authority and :path: the target is the path
  private val http2 = request.httpVersion == HttpVersion.`HTTP/2`

  def uri: String =
    if target == null then
      val u = request.uri
      target = if http2 then u.copy(scheme = None, authority = None).renderString else u.renderString
    target.nn

  /**
   * The declared Content-Length, or -1 without one: parsed once, where http4s's `contentLength` parses the field each
   * time it is asked.
   */
  def declaredLength: Long =
    if length == Http4sRequest.NotParsed then length = request.contentLength.getOrElse(-1L)
    length

  /** Whether the request has a body: a declared length past 0, or chunks. */
  def hasBody: Boolean = declaredLength > 0 || request.isChunked

  /**
   * Whether the body's length is not known until it ends: chunked, or a stream an application or its tests made in
   * memory (no remote address) without a Content-Length.
   */
  def lengthUnknown: Boolean = request.isChunked || (declaredLength < 0 && request.remote.isEmpty)

  def protocol: String = request.httpVersion.renderString

  def headerOrNull(name: String): String | Null = request.headers.get(CIString(name)) match
    case Some(values) => values.head.value
    case None => if http2 && name.equalsIgnoreCase("Host") then authorityOrNull else null

  def headerValues(name: String): List[String] = request.headers.get(CIString(name)) match
    case Some(values) => values.toList.map(_.value)
    case None =>
      val authority = if http2 && name.equalsIgnoreCase("Host") then authorityOrNull else null
      if authority == null then Nil else List(authority.nn)

  def headers: List[Header] =
    val fields = request.headers.headers.map(h => Header(h.name.toString, h.value))
    val authority = if http2 && request.headers.get(Http4sRequest.Host).isEmpty then authorityOrNull else null
    if authority == null then fields else Header("Host", authority.nn) :: fields

  // On HTTP/2 the :authority stands for a Host field the request doesn't have (RFC 9113 §8.3.1)
  private def authorityOrNull: String | Null = Http4sRequest.authorityOf(request)

  def remoteAddressOrNull: InetSocketAddress | Null = request.remote match
    case Some(address) => address.toInetSocketAddress
    case None => null

  override def peerCertificates: List[java.security.cert.X509Certificate] =
    request.attributes.lookup(org.http4s.server.ServerRequestKeys.SecureSession).flatten.fold(Nil)(_.X509Certificate)

  override def secure: Boolean = request.isSecure.contains(true)

  def bodyOrNull: Array[Byte] | Null = body

  override def bodySource: BodySource = if source != null then source.nn else super.bodySource

private[http4s] object Http4sRequest:
  private val NotParsed = -2L
  private val Host = CIString("Host")

  /** An HTTP/2 request's `:authority`, as Rapier's watch over its connection read it. */
  val Authority: Key[String] = Key.newKey[SyncIO, String].unsafeRunSync()

  /** An HTTP/2 request's `:authority`: as Rapier read it, or in its URI; null without one. */
  def authorityOf[F[_]](request: Request[F]): String | Null = request.attributes.lookup(Authority) match
    case Some(authority) => authority
    case None => request.uri.authority.fold(null)(_.renderString)

  /** http4s's standard methods are shared values: Rapier's own constants for them, so that routing compares by reference. */
  def methodOf(m: H4Method): Method =
    if m eq H4Method.GET then Method.GET
    else if m eq H4Method.POST then Method.POST
    else if m eq H4Method.HEAD then Method.HEAD
    else if m eq H4Method.PUT then Method.PUT
    else if m eq H4Method.DELETE then Method.DELETE
    else if m eq H4Method.PATCH then Method.PATCH
    else if m eq H4Method.OPTIONS then Method.OPTIONS
    else Method(m.name)
