package rapier.netty

import io.netty.handler.ssl.SslProvider
import rapier.netty.internal.NettyTls

/** With tcnative on the class path (this module's tests have it), Netty's TLS runs on OpenSSL's provider. */
class NettyTlsProviderTest extends munit.FunSuite:
  test("TLS runs on OpenSSL's provider when tcnative is on the class path"):
    assertEquals(NettyTls.provider, SslProvider.OPENSSL)
