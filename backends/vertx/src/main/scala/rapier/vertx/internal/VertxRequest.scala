package rapier.vertx.internal

import io.netty.handler.codec.http.HttpHeaders
import io.netty.util.AsciiString
import io.vertx.core.http.{HttpServerRequest, HttpVersion}
import rapier.model.{Header, Method}
import rapier.server.spi.{BodySource, ServerRequest}

import java.net.InetSocketAddress
import scala.jdk.CollectionConverters.*

/**
 * A Vert.x request as the interpreter sees it: a view over Vert.x's own objects, converting nothing until asked. The
 * body has been read in full, and set here, by the time the interpreter runs an endpoint (routing needs no body); or,
 * for an endpoint that streams it, its source is set instead.
 */
private[vertx] final class VertxRequest(request: HttpServerRequest) extends ServerRequest:
  var body: Array[Byte] | Null = VertxRequest.NoBody
  // The body streamed to an endpoint that reads it as it arrives; `body` is then null.
  private var streamed: BodySource | Null = null
  def source_=(s: BodySource): Unit =
    streamed = s
    body = null
  def source: BodySource | Null = streamed

  def bodyOrNull: Array[Byte] | Null = body
  override def bodySource: BodySource = if streamed != null then streamed.nn else super.bodySource

  // The fields framing and syntax checks need, found by one walk over the header section (`readHead`).
  var hosts = 0
  var host: String | Null = null
  var contentLength: String | Null = null
  var transferEncoding = false
  var expect: String | Null = null

  /**
   * Walks the header fields once for Host, Content-Length, Transfer-Encoding and Expect. Vert.x's HTTP/1 headers are
   * Netty's, whose fields can be read as they are; through `MultiMap`'s iterator each would be wrapped, its name
   * copied.
   */
  def readHead(): Unit = request.headers match
    case fields: HttpHeaders =>
      val each = fields.iteratorCharSequence
      while each.hasNext do
        val field = each.next
        see(field.getKey, field.getValue)
    case fields => fields.forEach((name, value) => see(name, value))

  // The four names differ in length: one comparison per field at most.
  private def see(name: CharSequence, value: CharSequence): Unit = name.length match
    case 4 if AsciiString.contentEqualsIgnoreCase(name, "Host") =>
      hosts += 1
      if host == null then host = value.toString
    case 14 if AsciiString.contentEqualsIgnoreCase(name, "Content-Length") =>
      if contentLength == null then contentLength = value.toString
    case 17 if AsciiString.contentEqualsIgnoreCase(name, "Transfer-Encoding") => transferEncoding = true
    case 6 if AsciiString.contentEqualsIgnoreCase(name, "Expect") =>
      if expect == null then expect = value.toString
    case _ => ()

  // Vert.x hands over Netty's method constants, whose names are interned literals: routing compares them by reference.
  def method: Method = Method.unsafe(request.method.name)
  def uri: String = request.uri
  def protocol: String = request.version match
    case HttpVersion.HTTP_1_0 => "HTTP/1.0"
    case HttpVersion.HTTP_2 => "HTTP/2"
    case _ => "HTTP/1.1"

  def headerOrNull(name: String): String | Null =
    val value = request.getHeader(name)
    if value == null && name.equalsIgnoreCase("Host") then authorityOrNull else value

  // An HTTP/2 request's `:authority`, which stands for its Host when it has none (RFC 9113 §8.3.1)
  private def authorityOrNull: String | Null =
    if !Responder.http2(request) then null
    else
      val authority = request.authority
      if authority == null then null else authority.toString

  def headerValues(name: String): List[String] =
    val all = request.headers.getAll(name)
    if !all.isEmpty then all.asScala.toList
    else if name.equalsIgnoreCase("Host") then Option(authorityOrNull).map(_.nn).toList
    else Nil

  def headers: List[Header] =
    val all = request.headers.asScala.map(e => Header(e.getKey, e.getValue)).toList
    val authority = if request.headers.contains("Host") then null else authorityOrNull
    if authority == null then all else Header("Host", authority.nn) :: all

  def remoteAddressOrNull: InetSocketAddress | Null =
    val a = request.remoteAddress
    if a == null || a.hostAddress == null then null else InetSocketAddress(a.hostAddress, a.port)

  override def peerCertificates: List[java.security.cert.X509Certificate] =
    val connection = request.connection
    if connection == null || !connection.isSsl then Nil else rapier.server.Tls.peerCertificates(connection.sslSession)

  override def secure: Boolean =
    val connection = request.connection
    connection != null && connection.isSsl

private[vertx] object VertxRequest:
  val NoBody = new Array[Byte](0)
