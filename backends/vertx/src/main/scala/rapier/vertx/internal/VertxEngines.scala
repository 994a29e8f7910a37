package rapier.vertx.internal

import io.netty.handler.ssl.{ClientAuth, SslContext}
import io.vertx.core.net.JdkSSLEngineOptions
import io.vertx.core.spi.tls.SslContextFactory
import rapier.nettyhttp.JdkTls
import rapier.server.Tls

import javax.net.ssl.{KeyManagerFactory, SNIServerName, TrustManagerFactory}

/**
 * Vert.x's JDK engine, each made with a server's [[Tls]] cipher suites and groups (`JdkTls.configured`): Vert.x's own
 * options take the suites but not the groups. Vert.x copies its engine options, so the copy is one of these too.
 */
private[vertx] final class VertxEngines(tls: Tls) extends JdkSSLEngineOptions:
  override def copy(): JdkSSLEngineOptions = VertxEngines(tls)

  override def sslContextFactory(): SslContextFactory =
    val made = super.sslContextFactory()
    new SslContextFactory:
      override def useAlpn(useAlpn: Boolean): SslContextFactory =
        made.useAlpn(useAlpn); this
      override def forServer(auth: ClientAuth): SslContextFactory =
        made.forServer(auth); this
      override def forClient(name: SNIServerName, algorithm: String): SslContextFactory =
        made.forClient(name, algorithm)
        this
      override def enabledProtocols(protocols: java.util.Set[String]): SslContextFactory =
        made.enabledProtocols(protocols)
        this
      override def keyMananagerFactory(keys: KeyManagerFactory): SslContextFactory =
        made.keyMananagerFactory(keys)
        this
      override def trustManagerFactory(trust: TrustManagerFactory): SslContextFactory =
        made.trustManagerFactory(trust)
        this
      override def enabledCipherSuites(suites: java.util.Set[String]): SslContextFactory =
        made.enabledCipherSuites(suites)
        this
      override def applicationProtocols(protocols: java.util.List[String]): SslContextFactory =
        made.applicationProtocols(protocols)
        this
      def create(): SslContext = JdkTls.configured(made.create(), tls)
