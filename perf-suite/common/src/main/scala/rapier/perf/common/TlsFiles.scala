package rapier.perf.common

import java.nio.file.{Files, Path}
import java.security.KeyStore
import javax.net.ssl.{KeyManagerFactory, SSLContext}

/**
 * The suite's TLS key material, one self-signed ECDSA P-256 certificate for `localhost` and `127.0.0.1`, written out
 * of the class path into `directory`: as PEM files (certificate, PKCS #8 key) for the servers that read PEM, and as a
 * PKCS #12 store for those that take a JDK `SSLContext`. Every server of a TLS scenario serves this same key.
 */
final case class TlsFiles(certificate: Path, key: Path, keyStore: Path):
  /** A JDK context over the PKCS #12 store, TLS 1.3 and 1.2 as every server of the suite offers. */
  def sslContext(): SSLContext =
    val store = KeyStore.getInstance("PKCS12")
    val in = Files.newInputStream(keyStore)
    try store.load(in, TlsFiles.Password)
    finally in.close()
    val keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
    keys.init(store, TlsFiles.Password)
    val context = SSLContext.getInstance("TLS")
    context.init(keys.getKeyManagers, null, null)
    context

object TlsFiles:
  val Password: Array[Char] = "perf-suite".toCharArray

  /** TLS 1.3 and 1.2, what Rapier's servers offer by default. */
  val Protocols: List[String] = List("TLSv1.3", "TLSv1.2")

  /** A client's context that trusts the suite's certificate (and nothing else): what checks a TLS server's answers. */
  lazy val trusting: SSLContext =
    val in = getClass.getResourceAsStream("/rapier-perf-tls/server.crt")
    val certificate =
      try java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in)
      finally in.close()
    val store = KeyStore.getInstance("PKCS12")
    store.load(null, null)
    store.setCertificateEntry("suite", certificate)
    val trust = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm)
    trust.init(store)
    val context = SSLContext.getInstance("TLS")
    context.init(null, trust.getTrustManagers, null)
    context

  def writeTo(directory: Path): TlsFiles =
    def copy(name: String): Path =
      val target = directory.resolve(name)
      val in = getClass.getResourceAsStream(s"/rapier-perf-tls/$name")
      if in == null then throw IllegalStateException(s"rapier-perf-tls/$name is not on the class path")
      try Files.copy(in, target)
      finally in.close()
      target
    TlsFiles(copy("server.crt"), copy("server.key"), copy("server.p12"))
