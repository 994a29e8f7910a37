package rapier.server

import java.io.{ByteArrayInputStream, IOException}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.security.cert.{CertificateException, CertificateFactory, X509Certificate}
import java.security.spec.PKCS8EncodedKeySpec
import java.security.{GeneralSecurityException, KeyFactory, KeyStore, PrivateKey}
import java.util.Base64
import javax.crypto.{Cipher, EncryptedPrivateKeyInfo, SecretKeyFactory}
import javax.crypto.spec.PBEKeySpec
import javax.net.ssl.{KeyManagerFactory, SSLContext, TrustManagerFactory}
import scala.jdk.CollectionConverters.*

/**
 * HTTPS for a server Rapier starts (`BackendOptions.tls`): the server's certificate chain and key, the TLS versions
 * it speaks (1.3 and 1.2 unless set), and whether it asks clients for certificates (mutual TLS). Every backend reads
 * the same settings; what can't be read — a missing file, a key that isn't PKCS #8, a chain that doesn't match its
 * key — fails the server's start with a message naming the file and what to do.
 *
 * By default a server follows Mozilla's "intermediate" profile: TLS 1.3 and 1.2, on TLS 1.2 only the ECDHE and DHE
 * suites with AEAD ciphers (AES-GCM, ChaCha20-Poly1305), the groups X25519, P-256, P-384 (and ffdhe2048 for DHE);
 * [[withCipherSuites]] and [[withNamedGroups]] change them. A client's renegotiation (TLS 1.2) is refused on every
 * backend: the connection is closed.
 *
 * {{{
 * NettyServerOptions.default.withTls(Tls.pem(Path.of("cert.pem"), Path.of("key.pem")))
 * }}}
 */
final case class Tls private (
    keys: Tls.Keys,
    protocols: List[String],
    clientAuth: Tls.ClientAuth,
    trusted: Option[Tls.Trust],
    cipherSuites: List[String] = Tls.IntermediateSuites,
    namedGroups: List[String] = Tls.IntermediateGroups
):
  require(protocols.nonEmpty, "TLS needs at least one protocol version")
  require(
    protocols.forall(Tls.Versions.contains),
    s"TLS versions are ${Tls.Versions.mkString(", ")}, not ${protocols.filterNot(Tls.Versions.contains).mkString(", ")}"
  )
  require(
    clientAuth == Tls.ClientAuth.None || trusted.isDefined || keys.isInstanceOf[Tls.Keys.Context],
    "asking clients for certificates needs the authorities that issue them: withClientAuth(mode, trusted)"
  )

  require(cipherSuites.nonEmpty, "TLS needs at least one cipher suite")
  require(namedGroups.nonEmpty, "TLS needs at least one named group")

  /** Only these TLS versions (`TLSv1.3`, `TLSv1.2`). */
  def withProtocols(versions: String*): Tls = copy(protocols = versions.toList)

  /**
   * Only these cipher suites, by their IANA names (`TLS_AES_128_GCM_SHA256`, `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`),
   * TLS 1.3's and 1.2's alike, in order of preference; those an engine doesn't know are left out.
   */
  def withCipherSuites(suites: String*): Tls = copy(cipherSuites = suites.toList)

  /** Only these key-exchange groups, by their IANA names (`x25519`, `secp256r1`, `x448`, `ffdhe2048`). */
  def withNamedGroups(groups: String*): Tls = copy(namedGroups = groups.toList)

  /**
   * Sets a JDK engine's `parameters` to these versions, cipher suites (those among `supported`, the engine's) and named
   * groups (as algorithm constraints, which the JDK's engines apply to groups on every JDK, beside their own).
   */
  def configure(parameters: javax.net.ssl.SSLParameters, supported: Array[String]): Unit =
    parameters.setProtocols(protocols.toArray)
    parameters.setCipherSuites(suitesAmong(supported))
    parameters.setAlgorithmConstraints(groupConstraints)

  /** The key-exchange groups these settings allow, as a JDK engine's algorithm constraints. */
  def groupConstraints: java.security.AlgorithmConstraints = Tls.GroupsOnly(namedGroups.map(_.toLowerCase).toSet)

  /** The cipher suites of these settings an engine that supports `supported` knows, in their order. */
  def suitesAmong(supported: Array[String]): Array[String] =
    val known = supported.toSet
    val chosen = cipherSuites.filter(known.contains)
    if chosen.isEmpty then
      throw IllegalArgumentException(
        s"none of the TLS cipher suites ${cipherSuites.mkString(", ")} is known to this server's TLS engine"
      )
    chosen.toArray

  /**
   * Asks clients for a certificate issued by one of `trusted` (PEM files of authorities' certificates, or a trust
   * store): [[Tls.ClientAuth.Required]] refuses a client without one, [[Tls.ClientAuth.Optional]] lets it in.
   */
  def withClientAuth(mode: Tls.ClientAuth, trusted: Tls.Trust): Tls = copy(clientAuth = mode, trusted = Some(trusted))

  /**
   * The JDK's context for these settings, built when a server starts.
   * @throws IllegalArgumentException
   *   naming the file or store that can't be read, and why
   */
  def sslContext(): SSLContext = keys match
    case Tls.Keys.Context(context) => context
    case _ =>
      val context = SSLContext.getInstance("TLS")
      context.init(keyManagers().nn.getKeyManagers, trustManagers().map(_.getTrustManagers).orNull, null)
      context

  /** The server's key and chain, for a backend that builds its own context; null when given a context. */
  def keyManagers(): KeyManagerFactory | Null = keys match
    case Tls.Keys.Context(_) => null
    case keys =>
      val managers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
      val (store, password) = Tls.keyStore(keys)
      managers.init(store, password)
      managers

  /** The authorities trusted for clients' certificates, if clients are asked for them. */
  def trustManagers(): Option[TrustManagerFactory] = trusted.map(Tls.trustManagers)

object Tls:
  /** The versions a server may speak: 1.3 and 1.2 (RFC 8996 deprecates the older ones). */
  val Versions: List[String] = List("TLSv1.3", "TLSv1.2")

  /** Mozilla's "intermediate" cipher suites (TLS 1.3's, then TLS 1.2's ECDHE and DHE with AEAD ciphers), IANA names. */
  val IntermediateSuites: List[String] = List(
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
  )

  /** Mozilla's "intermediate" groups (X25519, P-256, P-384), and ffdhe2048 for its DHE suites (RFC 7919). */
  val IntermediateGroups: List[String] = List("x25519", "secp256r1", "secp384r1", "ffdhe2048")

  // The groups a JDK engine knows (RFC 8422, RFC 7748, RFC 7919), by the names it asks its constraints about
  private val KnownGroups = Set(
    "x25519",
    "x448",
    "secp256r1",
    "secp384r1",
    "secp521r1",
    "ffdhe2048",
    "ffdhe3072",
    "ffdhe4096",
    "ffdhe6144",
    "ffdhe8192"
  )

  /**
   * Permits a key agreement on a known group only if it is `allowed`, and everything else: the engine's own
   * constraints (`jdk.tls.disabledAlgorithms`) still apply beside these.
   */
  private final class GroupsOnly(allowed: Set[String]) extends java.security.AlgorithmConstraints:
    def permits(
        primitives: java.util.Set[java.security.CryptoPrimitive],
        algorithm: String,
        parameters: java.security.AlgorithmParameters
    ): Boolean =
      val name = algorithm.toLowerCase(java.util.Locale.ROOT)
      !(primitives.contains(java.security.CryptoPrimitive.KEY_AGREEMENT) && KnownGroups(name) && !allowed(name))
    def permits(primitives: java.util.Set[java.security.CryptoPrimitive], key: java.security.Key): Boolean = true
    def permits(
        primitives: java.util.Set[java.security.CryptoPrimitive],
        algorithm: String,
        key: java.security.Key,
        parameters: java.security.AlgorithmParameters
    ): Boolean = true

  /**
   * The certificate chain (the server's certificate first, then its issuers) and its private key, both PEM files; the
   * key unencrypted PKCS #8 (`BEGIN PRIVATE KEY`), or encrypted (`BEGIN ENCRYPTED PRIVATE KEY`) with `password`.
   */
  def pem(certificateChain: Path, privateKey: Path, password: Option[String] = None): Tls =
    Tls(Keys.Pem(certificateChain, privateKey, password), Versions, ClientAuth.None, None)

  /** The first key entry of `store` (a PKCS #12 or JKS store, loaded), its password `password`. */
  def keyStore(store: KeyStore, password: String): Tls =
    Tls(Keys.Store(store, password), Versions, ClientAuth.None, None)

  /** A context made elsewhere, used as it is: its key and trust managers decide. */
  def context(context: SSLContext): Tls = Tls(Keys.Context(context), Versions, ClientAuth.None, None)

  /** Where a server's key and certificates come from. */
  enum Keys:
    case Pem(certificateChain: Path, privateKey: Path, password: Option[String])
    case Store(store: KeyStore, password: String)
    case Context(context: SSLContext)

  /** Whether a server asks its clients for certificates. */
  enum ClientAuth:
    case None, Optional, Required

  /** The authorities whose certificates a server trusts for its clients'. */
  enum Trust:
    case Pem(certificates: Path)
    case Store(store: KeyStore)

  object Trust:
    def pem(certificates: Path): Trust = Trust.Pem(certificates)
    def store(store: KeyStore): Trust = Trust.Store(store)

  private def keyStore(keys: Keys): (KeyStore, Array[Char]) = keys match
    case Keys.Store(store, password) => (store, password.toCharArray)
    case Keys.Pem(chainFile, keyFile, password) =>
      val chain = certificates(chainFile)
      val key = privateKey(keyFile, password)
      if chain.head.getPublicKey.getAlgorithm != key.getAlgorithm then
        throw IllegalArgumentException(
          s"the private key in $keyFile (${key.getAlgorithm}) is not the key of the first certificate in $chainFile " +
            s"(${chain.head.getPublicKey.getAlgorithm}): the server's own certificate comes first in its chain"
        )
      val store = KeyStore.getInstance("PKCS12")
      store.load(null, null)
      val secret = "rapier".toCharArray
      store.setKeyEntry("server", key, secret, chain.toArray)
      (store, secret)
    case Keys.Context(_) => throw IllegalStateException("a context carries its own keys")

  private def trustManagers(trust: Trust): TrustManagerFactory =
    val store = trust match
      case Trust.Store(store) => store
      case Trust.Pem(file) =>
        val store = KeyStore.getInstance("PKCS12")
        store.load(null, null)
        certificates(file).zipWithIndex.foreach((c, i) => store.setCertificateEntry(s"trusted-$i", c))
        store
    val managers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
    managers.init(store)
    managers

  /** The X.509 certificates a TLS session's peer presented, its own first; empty when it presented none. */
  def peerCertificates(session: javax.net.ssl.SSLSession): List[X509Certificate] =
    try session.getPeerCertificates.toList.collect { case c: X509Certificate => c }
    catch case _: javax.net.ssl.SSLPeerUnverifiedException => Nil

  /** The certificates of a PEM file, in their order. */
  def certificates(file: Path): List[X509Certificate] =
    val bytes = read(file, "certificate chain")
    val found =
      try
        CertificateFactory
          .getInstance("X.509")
          .generateCertificates(ByteArrayInputStream(bytes))
          .asScala
          .toList
          .collect { case c: X509Certificate => c }
      catch
        case e: CertificateException =>
          throw IllegalArgumentException(s"$file holds no certificate this can read (`BEGIN CERTIFICATE`)", e)
    if found.isEmpty then throw IllegalArgumentException(s"$file holds no certificate (`BEGIN CERTIFICATE`)")
    found

  /** The private key of a PEM file: PKCS #8, unencrypted, or encrypted with `password`. */
  def privateKey(file: Path, password: Option[String] = None): PrivateKey =
    val text = String(read(file, "private key"), StandardCharsets.US_ASCII)
    def block(label: String): Option[Array[Byte]] =
      val begin = s"-----BEGIN $label-----"
      val at = text.indexOf(begin)
      if at < 0 then None
      else
        val end = text.indexOf(s"-----END $label-----", at)
        if end < 0 then throw IllegalArgumentException(s"$file: `$begin` has no END line")
        Some(Base64.getMimeDecoder.decode(text.substring(at + begin.length, end)))
    val pkcs8 = block("PRIVATE KEY") match
      case Some(der) => PKCS8EncodedKeySpec(der)
      case None =>
        block("ENCRYPTED PRIVATE KEY") match
          case Some(der) =>
            val secret = password.getOrElse(
              throw IllegalArgumentException(s"$file holds an encrypted key: give its password to Tls.pem")
            )
            try
              val info = EncryptedPrivateKeyInfo(der)
              // PBES2 (OpenSSL's default) names its real scheme in its parameters: PBEWithHmacSHA256AndAES_256, …
              val scheme = if info.getAlgName == "PBES2" then info.getAlgParameters.toString else info.getAlgName
              val key = SecretKeyFactory.getInstance(scheme).generateSecret(PBEKeySpec(secret.toCharArray))
              val cipher = Cipher.getInstance(scheme)
              cipher.init(Cipher.DECRYPT_MODE, key, info.getAlgParameters)
              info.getKeySpec(cipher)
            catch
              case e: GeneralSecurityException =>
                throw IllegalArgumentException(s"$file: the key can't be decrypted with that password", e)
          case None =>
            val other = "-----BEGIN ([A-Z ]*PRIVATE KEY)-----".r.findFirstMatchIn(text).map(_.group(1))
            throw IllegalArgumentException(other match
              case Some(kind) =>
                s"$file holds a `$kind`; Rapier reads PKCS #8 keys (`BEGIN PRIVATE KEY`): convert it with " +
                  s"`openssl pkcs8 -topk8 -nocrypt -in $file -out key.pk8.pem`"
              case None => s"$file holds no private key (`BEGIN PRIVATE KEY`)")
    val algorithms = List("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA")
    algorithms.iterator
      .flatMap(a =>
        try Some(KeyFactory.getInstance(a).generatePrivate(pkcs8))
        catch case _: GeneralSecurityException => None
      )
      .nextOption()
      .getOrElse(throw IllegalArgumentException(s"$file: the key is none of ${algorithms.mkString(", ")}"))

  private def read(file: Path, what: String): Array[Byte] =
    try Files.readAllBytes(file)
    catch
      case e: IOException =>
        throw IllegalArgumentException(s"the $what $file can't be read (${e.getClass.getSimpleName}: ${e.getMessage})")
