package rapier.netty.internal

import io.netty.handler.ssl.ApplicationProtocolConfig.{
  Protocol, SelectedListenerFailureBehavior, SelectorFailureBehavior
}
import io.netty.handler.ssl.{
  ApplicationProtocolConfig,
  ApplicationProtocolNames,
  ClientAuth,
  IdentityCipherSuiteFilter,
  JdkSslContext,
  OpenSsl,
  OpenSslContextOption,
  SslContext,
  SslContextBuilder,
  SslProvider,
  SupportedCipherSuiteFilter
}
import rapier.nettyhttp.JdkTls
import rapier.server.Tls

import scala.jdk.CollectionConverters.*

/**
 * A server's [[Tls]] settings as Netty's context: OpenSSL's provider (BoringSSL, from `netty-tcnative-boringssl-static`)
 * when it is on the class path and the keys are Rapier's to load, the JDK's otherwise. ALPN offers HTTP/1.1, and
 * HTTP/2 first when it is on. The cipher suites and groups are the settings' either way; on the JDK's engine, which
 * honours a client's renegotiation, the connection refuses one itself ([[Secured.refusesRenegotiation]]).
 */
private[netty] object NettyTls:
  /** A server's context, and whether its engine refuses a client's renegotiation itself (OpenSSL's does). */
  final class Secured(val context: SslContext, val refusesRenegotiation: Boolean)

  private def alpn(http2: Boolean) =
    val protocols =
      if http2 then List(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
      else List(ApplicationProtocolNames.HTTP_1_1)
    ApplicationProtocolConfig(
      Protocol.ALPN,
      SelectorFailureBehavior.NO_ADVERTISE,
      SelectedListenerFailureBehavior.ACCEPT,
      protocols*
    )

  /** The context of `tls`; ALPN offers `h2` before HTTP/1.1 when the server speaks `http2`. */
  def context(tls: Tls, http2: Boolean): Secured =
    val alpn = this.alpn(http2)
    val auth = tls.clientAuth match
      case Tls.ClientAuth.None => ClientAuth.NONE
      case Tls.ClientAuth.Optional => ClientAuth.OPTIONAL
      case Tls.ClientAuth.Required => ClientAuth.REQUIRE
    tls.keyManagers() match
      case null =>
        val context =
          JdkSslContext(
            tls.sslContext(),
            false,
            null,
            IdentityCipherSuiteFilter.INSTANCE,
            alpn,
            auth,
            tls.protocols.toArray,
            false
          )
        Secured(JdkTls.configured(context, tls), refusesRenegotiation = false)
      case keys =>
        val openSsl = provider == SslProvider.OPENSSL
        val builder = SslContextBuilder
          .forServer(keys)
          .sslProvider(provider)
          .protocols(tls.protocols*)
          .ciphers(tls.cipherSuites.asJava, SupportedCipherSuiteFilter.INSTANCE)
          .clientAuth(auth)
          .applicationProtocolConfig(alpn)
        if openSsl then builder.option(OpenSslContextOption.GROUPS, tls.namedGroups.flatMap(openSslGroup).toArray)
        tls.trustManagers().foreach(builder.trustManager)
        val context = builder.build()
        if openSsl then Secured(context, refusesRenegotiation = true)
        else Secured(JdkTls.configured(context, tls), refusesRenegotiation = false)

  // BoringSSL's name for a group (it has no finite-field ones)
  private def openSslGroup(iana: String): Option[String] = iana.toLowerCase match
    case "x25519" => Some("X25519")
    case "x448" => Some("X448")
    case "secp256r1" => Some("P-256")
    case "secp384r1" => Some("P-384")
    case "secp521r1" => Some("P-521")
    case _ => None

  /** The provider a server's TLS runs on: OpenSSL's when its native library loads. */
  def provider: SslProvider = if OpenSsl.isAvailable then SslProvider.OPENSSL else SslProvider.JDK
