package rapier.netty.internal

import io.netty.channel.Channel
import io.netty.handler.codec.http.HttpRequest
import rapier.model.{Header, Method}
import rapier.server.spi.{BodySource, ServerRequest}

import java.net.InetSocketAddress
import scala.jdk.CollectionConverters.*

/**
 * A Netty request as the interpreter sees it: a view over Netty's own objects, converting nothing until asked. Its
 * body is read in full by the time the interpreter sees the request (`body`), or streamed from the connection as the
 * endpoint reads it (`source`). `tls` is its connection's TLS, if any.
 */
private[netty] final class NettyRequest(
    request: HttpRequest,
    channel: Channel,
    tls: io.netty.handler.ssl.SslHandler | Null
) extends ServerRequest:
  var body: Array[Byte] | Null = null
  var source: BodySource | Null = null

  def bodyOrNull: Array[Byte] | Null = body
  override def bodySource: BodySource = if source != null then source.nn else super.bodySource

  // Netty hands over its shared HttpMethod constants, whose names are interned literals: routing compares them by
  // reference.
  def method: Method = Method.unsafe(request.method.name)
  def uri: String = request.uri
  def protocol: String = request.protocolVersion.text

  def headerOrNull(name: String): String | Null = request.headers.get(name)

  def headerValues(name: String): List[String] =
    val all = request.headers.getAll(name)
    if all.isEmpty then Nil else all.asScala.toList

  def headers: List[Header] = request.headers.iteratorAsString.asScala.map(e => Header(e.getKey, e.getValue)).toList

  def remoteAddressOrNull: InetSocketAddress | Null = channel.remoteAddress match
    case a: InetSocketAddress => a
    case _ => null

  override def peerCertificates: List[java.security.cert.X509Certificate] =
    if tls == null then Nil else rapier.server.Tls.peerCertificates(tls.nn.engine.getSession)

  override def secure: Boolean = tls != null
