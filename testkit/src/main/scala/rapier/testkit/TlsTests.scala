package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.{EOFException, IOException}
import java.net.{InetSocketAddress, Socket, URI}
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.security.KeyStore
import javax.net.ssl.{KeyManagerFactory, SSLContext, SSLHandshakeException, SSLSocket, TrustManagerFactory}
import scala.concurrent.Future
import scala.concurrent.duration.*
import scala.util.Try

/**
 * HTTPS on the servers Rapier starts (`BackendOptions.tls`): endpoints served over TLS 1.3 and 1.2 only, ALPN naming
 * HTTP/1.1; plain HTTP and versions not allowed refused; a client that never completes its handshake closed at the
 * head's deadline; client certificates required or not; keys that can't be read fail the start, saying why.
 */
trait TlsTests extends ServerTestSupport:
  import TlsTests.*

  private val hello = endpoint.get.in("tls" / "hello").out(stringBody).serverLogicSuccess[Future] { _ =>
    Future.successful("hello over TLS")
  }
  private val echo =
    endpoint.post.in("tls" / "echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)

  private val whoami =
    endpoint.get.in("tls" / "whoami").in(clientCertificates).out(stringBody).serverLogicSuccess[Future] {
      certificates => Future.successful(certificates.map(_.getSubjectX500Principal.getName).mkString(" < "))
    }

  private def withTls[T](tls: Tls, headDeadline: FiniteDuration = 10.seconds)(body: Int => T): T =
    val config = TestServerConfig(tls = Some(tls), headerReadTimeout = headDeadline)
    val running = server.start(List(hello, echo, whoami), config)
    try body(running.port)
    finally running.stop()

  test(anyStyle("TLS: endpoints are served over HTTPS, TLS 1.3 by default, ALPN naming HTTP/1.1")):
    withTls(Keys.server) { port =>
      val client = HttpClient.newBuilder().sslContext(Keys.clientContext(withCertificate = false)).build()
      def send(request: HttpRequest.Builder) =
        client.send(request.timeout(java.time.Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString())
      val got = send(HttpRequest.newBuilder(URI.create(s"https://localhost:$port/tls/hello")))
      assertEquals((got.statusCode, got.body), (200, "hello over TLS"))
      assertEquals(send(HttpRequest.newBuilder(URI.create(s"https://localhost:$port/tls/whoami"))).body, "")
      val big = "x" * 300_000
      val echoed = send(
        HttpRequest.newBuilder(
          URI.create(s"https://localhost:$port/tls/echo")
        ).POST(HttpRequest.BodyPublishers.ofString(big))
      )
      assertEquals((echoed.statusCode, echoed.body.length), (200, big.length))
      val socket = handshake(port, Keys.clientContext(withCertificate = false), alpn = List("h2", "http/1.1"))
      try assertEquals((socket.getSession.getProtocol, socket.getApplicationProtocol), ("TLSv1.3", "http/1.1"))
      finally socket.close()
      // As a newcomer tries it: curl, the self-signed certificate accepted with -k
      assertEquals(curl("-sk", s"https://localhost:$port/tls/hello"), (0, "hello over TLS"))
    }

  test(anyStyle("TLS: plain HTTP and TLS versions not allowed are refused")):
    withTls(Keys.server.withProtocols("TLSv1.3")) { port =>
      val refused = Try(handshake(port, Keys.clientContext(withCertificate = false), protocols = List("TLSv1.2")))
      assert(refused.failed.toOption.exists(_.isInstanceOf[IOException]), refused)
      val plain = Socket("localhost", port)
      try
        plain.setSoTimeout(5000)
        plain.getOutputStream.write("GET /tls/hello HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
        val answer = Try(String(plain.getInputStream.readAllBytes(), StandardCharsets.ISO_8859_1)).getOrElse("")
        assert(!answer.contains("hello over TLS"), answer)
      finally plain.close()
    }
    withTls(Keys.server) { port =>
      val tls12 = handshake(port, Keys.clientContext(withCertificate = false), protocols = List("TLSv1.2"))
      try assertEquals(tls12.getSession.getProtocol, "TLSv1.2")
      finally tls12.close()
    }

  test(anyStyle("TLS: Mozilla's intermediate profile by default: on TLS 1.2 AEAD suites only, and no X448")):
    withTls(Keys.server) { port =>
      val context = Keys.clientContext(withCertificate = false)
      def tls12(suites: String*) = Try(handshake(port, context, protocols = List("TLSv1.2"), suites = suites.toList))
      val refused = tls12(
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_128_CBC_SHA256"
      )
      assert(refused.failed.toOption.exists(_.isInstanceOf[IOException]), s"CBC and static-RSA suites: $refused")
      for suite <- List("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256") do
        val taken = tls12(suite).get
        try assertEquals(taken.getSession.getCipherSuite, suite)
        finally taken.close()
      assume(openssl.isDefined, "no openssl here to offer a group of its choosing")
      // Offered X448 alone, the server takes another key exchange (TLS 1.2's DHE) or none, never X448
      for version <- List("-tls1_2", "-tls1_3") do
        val x448 = keyExchange(port, version, "X448")
        assert(!x448.exists(_.startsWith("X448")), s"$version: a client offering X448 alone got $x448")
        assertEquals(keyExchange(port, version, "X25519").map(_.takeWhile(_ != ',')), Some("X25519"), version)
    }

  test(anyStyle("TLS: a client's renegotiation is refused: its connection is closed")):
    withTls(Keys.server) { port =>
      val socket = handshake(port, Keys.clientContext(withCertificate = false), protocols = List("TLSv1.2"))
      try
        val in = java.io.BufferedInputStream(socket.getInputStream)
        def get() =
          socket.getOutputStream.write("GET /tls/hello HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
          socket.getOutputStream.flush()
          RawHttp.readResponse(in, head = false)
        assertEquals(get().body, "hello over TLS")
        // The JDK's client starts a new handshake on an established TLS 1.2 connection
        val again = Try {
          socket.startHandshake()
          get()
        }
        assert(again.isFailure, s"served after a renegotiation: $again")
      finally socket.close()
    }

  test(anyStyle("TLS: a client that never completes its handshake is closed at the head's deadline")):
    withTls(Keys.server, headDeadline = 1.second) { port =>
      val silent = Socket()
      try
        silent.connect(InetSocketAddress("localhost", port))
        silent.setSoTimeout(10_000)
        val start = System.nanoTime
        // Half a record header: the server waits for the rest, until its deadline
        silent.getOutputStream.write(Array[Byte](0x16, 0x03))
        // Closed, a TLS alert perhaps first: the input ends, or is reset; a read that times out is not a close
        val closed = Try(silent.getInputStream.readAllBytes()) match
          case scala.util.Success(_) => true
          case scala.util.Failure(_: java.net.SocketTimeoutException) => false
          case scala.util.Failure(e) => e.isInstanceOf[IOException]
        val waited = (System.nanoTime - start).nanos
        assert(closed, "the connection is closed")
        assert(waited < 8.seconds, s"closed after $waited, not near the 1 s deadline")
      finally silent.close()
    }

  test(anyStyle(
    "TLS: a client certificate, required, lets in a client with one, read by an input, and refuses one without"
  )):
    val mutual = Keys.server.withClientAuth(Tls.ClientAuth.Required, Tls.Trust.pem(Keys.file("ca.crt")))
    withTls(mutual) { port =>
      val client = HttpClient.newBuilder().sslContext(Keys.clientContext(withCertificate = true)).build()
      val got = client.send(
        HttpRequest.newBuilder(URI.create(s"https://localhost:$port/tls/hello")).build(),
        HttpResponse.BodyHandlers.ofString()
      )
      assertEquals((got.statusCode, got.body), (200, "hello over TLS"))
      val who = client.send(
        HttpRequest.newBuilder(URI.create(s"https://localhost:$port/tls/whoami")).build(),
        HttpResponse.BodyHandlers.ofString()
      )
      assertEquals(who.body, "CN=Rapier test client", "the client's certificate, read by an input")
      val anonymous = Try {
        val socket = handshake(port, Keys.clientContext(withCertificate = false))
        try
          // TLS 1.3: the server's refusal of the client's (empty) certificate arrives after the client's handshake
          socket.getOutputStream.write("GET /tls/hello HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
          socket.getOutputStream.flush()
          if socket.getInputStream.read() == -1 then throw EOFException("closed")
        finally socket.close()
      }
      assert(anonymous.failed.toOption.exists(_.isInstanceOf[IOException]), anonymous)
    }

  test(anyStyle("TLS: a key or certificate that can't be read fails the start, naming the file and what to do")):
    def refusal(tls: => Tls): String =
      intercept[IllegalArgumentException](withTls(tls)(_ => ())).getMessage
    val missing = Keys.file("ca.crt").resolveSibling("missing.key")
    assert(refusal(Tls.pem(Keys.file("server-chain.crt"), missing)).contains(missing.toString))
    assert(refusal(Tls.pem(Keys.file("server-chain.crt"), Keys.file("server-pkcs1.key"))).contains("openssl pkcs8"))
    assert(refusal(Tls.pem(Keys.file("server.key"), Keys.file("server.key"))).contains("no certificate"))
    val encrypted = Keys.file("server-encrypted.key")
    assert(refusal(Tls.pem(Keys.file("server-chain.crt"), encrypted)).contains("password"))
    withTls(Tls.pem(Keys.file("server-chain.crt"), encrypted, Some("secret"))) { port =>
      handshake(port, Keys.clientContext(withCertificate = false)).close()
    }

object TlsTests:
  /** curl's exit code and output, run with `arguments`, given 10 s at most. */
  def curl(arguments: String*): (Int, String) =
    val process = ProcessBuilder(("curl" +: "--max-time" +: "10" +: arguments)*).redirectErrorStream(true).start()
    val output = String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8)
    (process.waitFor(), output)

  /** openssl's command-line client, where one is installed. */
  lazy val openssl: Option[String] =
    Try(ProcessBuilder("openssl", "version").redirectErrorStream(true).start().waitFor()).toOption
      .filter(_ == 0)
      .map(_ => "openssl")

  /**
   * The key exchange (`X25519, 253 bits`, `DH, 2048 bits`) of a handshake with `port` by openssl's client offering
   * `version` (`-tls1_2`) and only `group`; None when the handshake fails.
   */
  def keyExchange(port: Int, version: String, group: String): Option[String] =
    val command = List("openssl", "s_client", "-connect", s"localhost:$port", version, "-groups", group, "-brief")
    val process = ProcessBuilder(command*).redirectErrorStream(true).start()
    process.getOutputStream.close()
    val output = String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8)
    val established = process.waitFor() == 0 && output.contains("CONNECTION ESTABLISHED")
    if !established then None
    else output.linesIterator.collectFirst { case l if l.contains("Temp Key:") => l.split("Temp Key:")(1).trim }

  /**
   * A finished handshake with the server at `port`, as a client with `context`, offering `protocols`, `alpn` and
   * `suites`.
   */
  def handshake(
      port: Int,
      context: SSLContext,
      protocols: List[String] = Nil,
      alpn: List[String] = Nil,
      suites: List[String] = Nil
  ): SSLSocket =
    val socket = context.getSocketFactory.createSocket("localhost", port).asInstanceOf[SSLSocket]
    socket.setSoTimeout(10_000)
    val parameters = socket.getSSLParameters
    if protocols.nonEmpty then parameters.setProtocols(protocols.toArray)
    if suites.nonEmpty then parameters.setCipherSuites(suites.toArray)
    if alpn.nonEmpty then parameters.setApplicationProtocols(alpn.toArray)
    socket.setSSLParameters(parameters)
    try socket.startHandshake()
    catch
      case e: SSLHandshakeException =>
        socket.close()
        throw e
    socket

  /** The kit's test keys (`rapier-tls/`, see its README), as files. */
  object Keys:
    private lazy val directory: Path =
      val dir = Files.createTempDirectory("rapier-tls")
      dir.toFile.deleteOnExit()
      for name <- List(
          "ca.crt",
          "server-chain.crt",
          "server.key",
          "server-pkcs1.key",
          "server-encrypted.key",
          "client.crt",
          "client.key"
        )
      do
        val in = getClass.getResourceAsStream(s"/rapier-tls/$name")
        try Files.copy(in, dir.resolve(name))
        finally in.close()
        dir.resolve(name).toFile.deleteOnExit()
      dir

    def file(name: String): Path = directory.resolve(name)

    /** The server's settings: its chain and key, as PEM files. */
    def server: Tls = Tls.pem(file("server-chain.crt"), file("server.key"))

    /** A client trusting the test authority, presenting its certificate when `withCertificate`. */
    def clientContext(withCertificate: Boolean): SSLContext =
      val trusted = KeyStore.getInstance("PKCS12")
      trusted.load(null, null)
      trusted.setCertificateEntry("ca", Tls.certificates(file("ca.crt")).head)
      val trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
      trust.init(trusted)
      val keys =
        if !withCertificate then null
        else
          val store = KeyStore.getInstance("PKCS12")
          store.load(null, null)
          val chain = Tls.certificates(file("client.crt"))
          store.setKeyEntry("client", Tls.privateKey(file("client.key")), Array.emptyCharArray, chain.toArray)
          val factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
          factory.init(store, Array.emptyCharArray)
          factory.getKeyManagers
      val context = SSLContext.getInstance("TLS")
      context.init(keys, trust.getTrustManagers, null)
      context
