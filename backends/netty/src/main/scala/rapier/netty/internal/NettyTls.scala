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
  SslContext,
  SslContextBuilder,
  SslProvider
}
import rapier.server.Tls

/**
 * A server's [[Tls]] settings as Netty's context: OpenSSL's provider (BoringSSL, from `netty-tcnative-boringssl-static`)
 * when it is on the class path and the keys are Rapier's to load, the JDK's otherwise. ALPN offers HTTP/1.1, and
 * HTTP/2 first when it is on.
 */
private[netty] object NettyTls:
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
  def context(tls: Tls, http2: Boolean): SslContext =
    val alpn = this.alpn(http2)
    val auth = tls.clientAuth match
      case Tls.ClientAuth.None => ClientAuth.NONE
      case Tls.ClientAuth.Optional => ClientAuth.OPTIONAL
      case Tls.ClientAuth.Required => ClientAuth.REQUIRE
    tls.keyManagers() match
      case null =>
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
      case keys =>
        val builder = SslContextBuilder
          .forServer(keys)
          .sslProvider(provider)
          .protocols(tls.protocols*)
          .clientAuth(auth)
          .applicationProtocolConfig(alpn)
        tls.trustManagers().foreach(builder.trustManager)
        builder.build()

  /** The provider a server's TLS runs on: OpenSSL's when its native library loads. */
  def provider: SslProvider = if OpenSsl.isAvailable then SslProvider.OPENSSL else SslProvider.JDK
