package rapier.testkit

import rapier.*
import rapier.server.*

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.time.Duration as JDuration
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}

/**
 * HTTP/2 on the servers Rapier starts (`BackendOptions.http2`): `h2` by ALPN over TLS, `h2c` by prior knowledge and by
 * `Upgrade` on plain connections, HTTP/1.1 beside both; RFC 9113's rules on requests; and the floods known to exhaust
 * HTTP/2 servers, each leaving the server answering other clients. The raw-frame cases are written with the `h2`
 * package (PyPI), run by `python3` from the kit's `rapier-h2/probe.py`.
 */
trait Http2Tests extends ServerTestSupport:
  import Http2Tests.*

  /**
   * Why this backend's server speaks HTTP/1.1 only, if it does: it then refuses `http2` at start, saying so, and the
   * other HTTP/2 tests are skipped with the reason.
   */
  def http2Unserved: Option[String] = None

  /**
   * Why this backend's server serves HTTP/2 over TLS only, if it does: a plain server asked for `h2c` then refuses to
   * start, saying so, the h2c test is skipped with the reason, and the raw-frame tests speak h2 over TLS.
   */
  def h2cUnserved: Option[String] = None

  /**
   * Why this backend's server takes h2c by prior knowledge only, if it does: an `Upgrade: h2c` is then answered over
   * HTTP/1.1, as a server may (RFC 9113 deprecates the upgrade), and the test says so.
   */
  def h2cUpgradeUnserved: Option[String] = None

  /**
   * Malformed requests of the raw-frame test (by kind) that this backend refuses otherwise than the kit asks (a reset
   * for those RFC 9113 calls malformed, HTTP/1.1's problem for the others), with the reason: its HTTP/2 layer resets
   * the stream or ends the connection, or Rapier or a router before it answers with a 4xx.
   */
  def http2RefusedOtherwise: Map[String, String] = Map.empty

  /**
   * Where h2spec, a third-party conformance tester, runs against this backend's server: the cases (by h2spec's
   * numbering, `http2/5.1/6`) it may fail, with the reason, each its HTTP/2 layer's or the server's own decision (some
   * depend on a race inside that layer, so a declared case may pass). None: not run in this class (h2spec tests the
   * server's HTTP/2 layer, the same whatever the logic's style: it runs in one class per server).
   */
  def h2specFailures: Option[Map[String, String]] = None

  private def http2Test(options: munit.TestOptions)(body: => Unit): Unit =
    test(options) {
      assume(http2Unserved.isEmpty, s"unsupported on ${server.name}: ${http2Unserved.getOrElse("")}")
      body
    }

  // The raw-frame cases: over h2c where the server serves it, over TLS otherwise
  private def overTls: Boolean = h2cUnserved.isDefined
  private def frames(name: String, port: Int, arguments: String*): Probed =
    probe(name, if overTls then s"tls:$port" else port.toString, arguments*)

  private val hello = endpoint.get.in("h2" / "hello").out(stringBody).serverLogicSuccess[Future] { _ =>
    Future.successful("hello over HTTP/2")
  }
  private val echo =
    endpoint.post.in("h2" / "echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)
  private val slow = endpoint.get.in("h2" / "slow").out(stringBody).serverLogicSuccess[Future] { _ =>
    val done = Promise[String]()
    Http2Tests.timer.schedule(() => done.success("late"), 200, java.util.concurrent.TimeUnit.MILLISECONDS)
    done.future
  }
  private val big = endpoint.get.in("h2" / "big").out(byteArrayBody).serverLogicSuccess[Future] { _ =>
    Future.successful(Array.fill[Byte](256 * 1024)('b'))
  }
  // Answers once the body's first chunk is read, the rest never
  private val early = endpoint.post.in("h2" / "early").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
    val first = Promise[String]()
    chunks.foreach(_ => first.trySuccess("early"))
    first.future
  }
  // A file of 2 MiB, written once: an answer read from a file, as a stalled stream would hold it
  private lazy val file: Path =
    val f = Files.createTempFile("rapier-h2-", ".bin")
    f.toFile.deleteOnExit()
    Files.write(f, Array.fill[Byte](2 * 1024 * 1024)('f'))
  private val fileAnswer = endpoint.get.in("h2" / "file").out(fileBody).serverLogicSuccess[Future] { _ =>
    Future.successful(file)
  }
  private val endpoints = List(hello, echo, slow, big, early, fileAnswer)

  private def withHttp2[T](
      tls: Boolean,
      http2: Option[Http2] = Some(Http2()),
      idle: FiniteDuration = 30.seconds,
      head: FiniteDuration = 10.seconds
  )(body: Int => T): T =
    val config = TestServerConfig(
      tls = if tls then Some(TlsTests.Keys.server) else None,
      http2 = http2,
      idleTimeout = idle,
      headerReadTimeout = head
    )
    val running = server.start(endpoints, config)
    try body(running.port)
    finally running.stop()

  private def client(tls: Boolean, version: HttpClient.Version): HttpClient =
    val builder = HttpClient.newBuilder().version(version).connectTimeout(JDuration.ofSeconds(10))
    if tls then builder.sslContext(TlsTests.Keys.clientContext(withCertificate = false))
    builder.build()

  private def send(client: HttpClient, uri: String, body: String | Null = null): HttpResponse[String] =
    val request = HttpRequest.newBuilder(URI.create(uri)).timeout(JDuration.ofSeconds(10))
    if body != null then request.POST(HttpRequest.BodyPublishers.ofString(body))
    client.send(request.build(), HttpResponse.BodyHandlers.ofString())

  test(
    anyStyle("HTTP/2: a server that speaks HTTP/1.1 only refuses it at start, saying so; one without h2c refuses that")
  ):
    val config = TestServerConfig(http2 = Some(Http2()))
    (http2Unserved, h2cUnserved) match
      case (Some(_), _) =>
        val refused = intercept[IllegalArgumentException](server.start(endpoints, config).stop())
        assert(refused.getMessage.contains("HTTP/1.1 only"), refused.getMessage)
      case (None, Some(_)) =>
        val refused = intercept[IllegalArgumentException](server.start(endpoints, config).stop())
        assert(refused.getMessage.contains("HTTP/2 over TLS only"), refused.getMessage)
        server.start(endpoints, config.copy(http2 = Some(Http2(cleartext = false)))).stop()
        server.start(endpoints, config.copy(tls = Some(TlsTests.Keys.server))).stop()
      case (None, None) => server.start(endpoints, config).stop()

  http2Test("HTTP/2: h2 by ALPN over TLS, for the JDK's client and curl --http2; HTTP/1.1 still served beside it"):
    withHttp2(tls = true) { port =>
      val h2 = client(tls = true, HttpClient.Version.HTTP_2)
      val got = send(h2, s"https://localhost:$port/h2/hello")
      assertEquals((got.version, got.statusCode, got.body), (HttpClient.Version.HTTP_2, 200, "hello over HTTP/2"))
      val large = "x" * 300_000
      val echoed = send(h2, s"https://localhost:$port/h2/echo", large)
      assertEquals(
        (echoed.version, echoed.statusCode, echoed.body.length),
        (HttpClient.Version.HTTP_2, 200, large.length)
      )
      val socket = TlsTests.handshake(port, TlsTests.Keys.clientContext(false), alpn = List("h2", "http/1.1"))
      try assertEquals(socket.getApplicationProtocol, "h2")
      finally socket.close()
      val http11 = send(client(tls = true, HttpClient.Version.HTTP_1_1), s"https://localhost:$port/h2/hello")
      assertEquals((http11.version, http11.body), (HttpClient.Version.HTTP_1_1, "hello over HTTP/2"))
      assertEquals(curlVersion("-sk", "--http2", s"https://localhost:$port/h2/hello"), ("2", "hello over HTTP/2"))
    }

  http2Test("HTTP/2: h2c on a plain connection, by prior knowledge and by Upgrade; HTTP/1.1 still served beside it"):
    assume(h2cUnserved.isEmpty, s"unsupported on ${server.name}: ${h2cUnserved.getOrElse("")}")
    withHttp2(tls = false) { port =>
      val url = s"http://localhost:$port/h2/hello"
      assertEquals(curlVersion("-s", "--http2-prior-knowledge", url), ("2", "hello over HTTP/2"))
      val upgraded = if h2cUpgradeUnserved.isDefined then "1.1" else "2"
      assertEquals(curlVersion("-s", "--http2", url), (upgraded, "hello over HTTP/2"))
      // The JDK's client upgrades its first request, then speaks HTTP/2 on the connection
      val h2 = client(tls = false, HttpClient.Version.HTTP_2)
      val version = if h2cUpgradeUnserved.isDefined then HttpClient.Version.HTTP_1_1 else HttpClient.Version.HTTP_2
      val first = send(h2, url)
      assertEquals((first.version, first.body), (version, "hello over HTTP/2"))
      val echoed = send(h2, s"http://localhost:$port/h2/echo", "y" * 100_000)
      assertEquals((echoed.version, echoed.body.length), (version, 100_000))
      assertEquals(curlVersion("-s", "--http1.1", url), ("1.1", "hello over HTTP/2"))
      // The preface split across reads is still h2c's, not the start of an HTTP/1.1 request
      val split = probe("split-preface", port.toString)
      assertEquals((split.int("status"), split.string("body")), (Some(200), Some("hello over HTTP/2")), split.raw)
    }

  http2Test(anyStyle("HTTP/2: a client that chooses h2 by ALPN and then sends nothing is closed, not kept")):
    val config = TestServerConfig(
      tls = Some(TlsTests.Keys.server),
      http2 = Some(Http2()),
      headerReadTimeout = 1.second,
      idleTimeout = 2.seconds
    )
    val running = server.start(endpoints, config)
    try
      val socket = TlsTests.handshake(running.port, TlsTests.Keys.clientContext(false), alpn = List("h2"))
      try
        assertEquals(socket.getApplicationProtocol, "h2")
        val start = System.nanoTime()
        // Whatever the server sends (its SETTINGS, a GOAWAY) is read until it closes
        val in = socket.getInputStream
        val buffer = new Array[Byte](4096)
        var closed = false
        while !closed do
          try closed = in.read(buffer) < 0
          catch case _: java.io.IOException => closed = true
        val took = (System.nanoTime() - start).nanos
        assert(took < 6.seconds, s"closed after ${took.toMillis} ms")
      finally socket.close()
    finally running.stop()

  test(
    anyStyle("HTTP/2: off unless asked for; a server without it speaks HTTP/1.1 to an Upgrade and refuses the preface")
  ):
    withHttp2(tls = false, http2 = None) { port =>
      val url = s"http://localhost:$port/h2/hello"
      assertEquals(curlVersion("-s", "--http2", url), ("1.1", "hello over HTTP/2"))
      val (_, output) = TlsTests.curl("-s", "--http2-prior-knowledge", url)
      assert(!output.contains("hello over HTTP/2"), output)
    }
    withHttp2(tls = true, http2 = None) { port =>
      val socket = TlsTests.handshake(port, TlsTests.Keys.clientContext(false), alpn = List("h2", "http/1.1"))
      try assertEquals(socket.getApplicationProtocol, "http/1.1")
      finally socket.close()
    }

  http2Test(
    anyStyle(
      "HTTP/2: requests RFC 9113 calls malformed are reset; those breaking HTTP's own rules get HTTP/1.1's problems"
    )
  ):
    withHttp2(tls = overTls) { port =>
      for kind <- List(
          "no-scheme",
          "no-path",
          "unknown-pseudo",
          "pseudo-after-regular",
          "duplicate-path",
          "connection-header",
          "te-gzip",
          "uppercase-name",
          "value-with-control"
        )
      do
        val r = frames("malformed", port, kind)
        if http2RefusedOtherwise.contains(kind) then
          assert(refusedOtherwise(r), s"$kind, declared refused otherwise: $r")
        else assert(r.int("reset").contains(ProtocolError) || r.int("goaway").contains(ProtocolError), s"$kind: $r")
      for (kind, problem) <- List(
          "path-with-space" -> RequestSyntaxMessages.targetChars,
          "path-not-absolute" -> RequestSyntaxMessages.targetForm,
          "method-not-token" -> RequestSyntaxMessages.method,
          "bad-authority" -> RequestSyntaxMessages.host,
          "host-differs" -> "The Host header differs from the :authority"
        )
      do
        val r = frames("malformed", port, kind)
        if http2RefusedOtherwise.contains(kind) then
          assert(refusedOtherwise(r), s"$kind, declared refused otherwise: $r")
        else
          assertEquals(r.int("status"), Some(400), s"$kind: $r")
          assert(r.raw.contains(problem), s"$kind: $r")
      // content-length against the DATA received (RFC 9113 §8.1.1)
      for (declared, sent) <- List(10 -> 20, 10 -> 5) do
        val r = frames("length-mismatch", port, declared.toString, sent.toString)
        assert(
          r.int("reset").contains(ProtocolError) || r.int("goaway").contains(ProtocolError),
          s"$declared/$sent: $r"
        )
      // Answered before its body ended: the stream reset with NO_ERROR after the response, as RFC 9113 §8.1 asks
      val answered = frames("early-answer", port, "1000000", "30000")
      assertEquals(
        (answered.int("status"), answered.string("body"), answered.int("reset")),
        (Some(200), Some("early"), Some(0)),
        answered.raw
      )
      val matching = frames("length-mismatch", port, "10", "10")
      assertEquals((matching.int("status"), matching.string("body")), (Some(200), Some("x" * 10)))
      // Past the header limit (8 KiB here) a 431; far past it, the connection ends (RFC 9113 §10.5.1)
      val tooLarge = frames("big-headers", port, "9000")
      assertEquals(tooLarge.int("status"), Some(431), tooLarge.raw)
      val farTooLarge = frames("big-headers", port, "40000")
      assert(farTooLarge.ended || farTooLarge.int("status").contains(431), farTooLarge.raw)
    }

  private def refusedOtherwise(r: Probed): Boolean =
    r.int("reset").contains(ProtocolError) || r.int("goaway").isDefined || r.string("why").contains("closed") ||
      r.int("status").exists(s => s >= 400 && s < 500)

  http2Test(
    anyStyle("HTTP/2: floods (rapid reset, CONTINUATION, SETTINGS, PING, empty DATA) end their connection, no other")
  ):
    withHttp2(tls = overTls) { port =>
      val reset = frames("rapid-reset", port, "2000")
      assertEquals(reset.int("goaway"), Some(EnhanceYourCalm), reset.raw)
      assert(reset.bool("served_after"), reset.raw)
      for (name, count) <- List("continuation-flood" -> 200_000, "empty-data" -> 10_000) do
        val r = frames(name, port, count.toString)
        assert(r.ended, s"$name: $r")
        assert(r.bool("served_after"), s"$name: $r")
      for (name, count) <- List("settings-flood" -> 3_000_000, "ping-flood" -> 2_000_000) do
        val r = frames(name, port, count.toString)
        assert(r.ended, s"$name: the server never cut it off: $r")
        assert(r.bool("served_after"), s"$name: $r")
    }

  http2Test(
    anyStyle("HTTP/2: a header block trickled a piece at a time ends its connection at the head deadline, no other")
  ):
    withHttp2(tls = overTls, head = 1.second) { port =>
      // 12 pieces 0.4 s apart: within every limit on frames, but 4.8 s for a block the deadline gives 1 s
      for mode <- List("continuation", "frame") do
        val r = frames("header-trickle", port, mode, "12", "0.4")
        // The GOAWAY's code is the server's choice: NO_ERROR from Rapier's deadline, ENHANCE_YOUR_CALM from Ember's
        assert(r.int("goaway").isDefined, s"$mode: $r")
        assert(r.double("seconds").exists(_ < 3.5), s"$mode: $r")
        assert(r.bool("served_after"), s"$mode: $r")
    }

  http2Test(anyStyle("HTTP/2: h2spec, a third-party conformance tester, finds nothing but what is declared")):
    assume(h2specFailures.isDefined, s"h2spec runs in another class of ${server.name}")
    val declared = h2specFailures.get
    withHttp2(tls = overTls) { port =>
      val failed = h2spec(port, overTls, declared.keySet)
      val undeclared = failed -- declared.keySet
      assert(undeclared.isEmpty, undeclared.map((id, why) => s"$id: $why").mkString("h2spec:\n", "\n", ""))
    }

  http2Test(
    anyStyle(
      "HTTP/2: streams past the limit are refused; a window never opened ends the connection at the idle timeout"
    )
  ):
    withHttp2(tls = overTls, http2 = Some(Http2(maxConcurrentStreams = 20)), idle = 2.seconds) { port =>
      val streams = frames("streams", port, "50")
      assertEquals(streams.int("refused"), Some(30), streams.raw)
      assert(streams.bool("served_after"), streams.raw)
      val stalled = frames("zero-window", port, "20", "/h2/big")
      assertEquals(stalled.int("heads"), Some(20), stalled.raw)
      assert(stalled.raw.contains("\"why\": \"closed\"") || stalled.int("goaway").isDefined, stalled.raw)
      assert(stalled.double("seconds").exists(_ < 15), stalled.raw)
      assert(stalled.bool("served_after"), stalled.raw)
    }

  http2Test(
    anyStyle("HTTP/2: answers whose client opens no window are reset at the idle timeout, pings or not; files closed")
  ):
    withHttp2(tls = overTls, idle = 2.seconds) { port =>
      val before = RetainedHeap.now()
      val probed = Future(frames("stalled", port, "100", "/h2/file", "0.25", "0", "15"))(using ExecutionContext.global)
      // While they wait: each holds a chunk of its file at most, never a read-ahead (2 MiB each, 200 MiB in all)
      Thread.sleep(1200)
      val held = RetainedHeap.now() - before
      val r = scala.concurrent.Await.result(probed, 60.seconds)
      assertEquals(r.int("heads"), Some(100), r.raw)
      assertEquals(r.int("cancels"), Some(100), r.raw)
      // Within the idle timeout of the first look that found them waiting, and a look (a quarter of it) more
      assert(r.double("first_reset").exists(_ >= 1.5), r.raw)
      assert(r.double("last_reset").exists(_ < 4.5), r.raw)
      // Then idle, pings or not: the connection ends an idle timeout later
      assert(r.int("goaway").isDefined, r.raw)
      assert(r.double("seconds").exists(_ < 9), r.raw)
      assert(held < 8L * 1024 * 1024, s"100 stalled answers held ${held / 1024} KiB")
      if OpenFiles.available then assertEquals(OpenFiles.on(file), 0, "the stalled answers' files are closed")
      assert(r.bool("served_after"), r.raw)
    }

  http2Test(anyStyle("HTTP/2: a window trickled open a few bytes at a time is no progress: its answers are reset")):
    withHttp2(tls = overTls, idle = 2.seconds) { port =>
      val r = frames("stalled", port, "20", "/h2/file", "0.25", "1", "15")
      assertEquals(r.int("cancels"), Some(20), r.raw)
      assert(r.int("data").exists(_ > 0), s"the trickle let bytes through: $r")
      assert(r.double("last_reset").exists(_ < 4.5), r.raw)
      assert(r.bool("served_after"), r.raw)
    }

  http2Test(anyStyle("HTTP/2: past the server's bound on stalled answers, the longest stalled are reset at once")):
    withHttp2(tls = overTls, http2 = Some(Http2(maxStalledStreams = 10))) { port =>
      val probed = Future(frames("stalled", port, "50", "/h2/file", "0.25", "0", "5"))(using ExecutionContext.global)
      Thread.sleep(4000)
      val open = if OpenFiles.available then OpenFiles.on(file) else 0
      val r = scala.concurrent.Await.result(probed, 60.seconds)
      assertEquals(r.int("heads"), Some(50), r.raw)
      // The idle timeout is 30 s: these are the bound's doing
      assertEquals(r.int("cancels"), Some(40), r.raw)
      assert(r.double("last_reset").exists(_ < 3.5), r.raw)
      assert(open <= 10, s"$open files open for 10 stalled answers at most")
      assert(r.bool("served_after"), r.raw)
    }

  http2Test(anyStyle("HTTP/2: streams the server must reset for a client's mistakes count toward the reset limit")):
    withHttp2(tls = overTls, http2 = Some(Http2(maxResetsPerWindow = 50))) { port =>
      for kind <- List("length", "after-end") do
        val r = frames("provoked-resets", port, kind, "400")
        assert(r.int("goaway").isDefined || r.string("why").exists(w => w == "closed" || w == "reset"), s"$kind: $r")
        assert(r.int("resets").exists(_ <= 60), s"$kind: $r")
        assert(r.bool("served_after"), s"$kind: $r")
    }

  http2Test(
    anyStyle("HTTP/2: a client that floods SETTINGS or PING and reads nothing is cut off, its connection ended")
  ):
    // Ended as a flood (acknowledgements left unread past a bound), or, by a server that stops reading it first, as idle
    withHttp2(tls = overTls, idle = 3.seconds) { port =>
      for name <- List("settings-flood", "ping-flood") do
        val r = frames(name, port, "1000000", "unread")
        assert(r.string("end").exists(e => e == "closed" || e == "reset"), s"$name: the server kept it: $r")
        assert(r.bool("served_after"), s"$name: $r")
    }

  test(anyStyle("HTTP/2: an h2c preface begun and left unfinished is held to the head's deadline")):
    assume(http2Unserved.isEmpty, s"unsupported on ${server.name}: ${http2Unserved.getOrElse("")}")
    val config =
      TestServerConfig(http2 = if h2cUnserved.isDefined then None else Some(Http2()), headerReadTimeout = 1.second)
    val running = server.start(endpoints, config)
    try
      val r = probe("partial-preface", running.port.toString, "10")
      assert(r.string("end").exists(e => e == "closed" || e == "reset"), r.raw)
      assert(r.double("seconds").exists(_ < 3.5), r.raw)
    finally running.stop()

  http2Test("HTTP/2: h2c upgrades only the first request of a connection, and never an HTTP/1.0 one"):
    assume(h2cUnserved.isEmpty, s"unsupported on ${server.name}: ${h2cUnserved.getOrElse("")}")
    assume(h2cUpgradeUnserved.isEmpty, s"unsupported on ${server.name}: ${h2cUpgradeUnserved.getOrElse("")}")
    withHttp2(tls = false) { port =>
      val upgrade = "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
      val http10 = RawHttp.exchange(port, s"GET /h2/hello HTTP/1.0\r\nHost: localhost\r\n$upgrade\r\n")
      assertEquals(http10.status, 200, "an HTTP/1.0 request is answered as one, its Upgrade ignored")
      val c = RawHttp(port)
      try
        assertEquals(c.send("GET /h2/hello HTTP/1.1\r\nHost: localhost\r\n\r\n").readResponse().status, 200)
        val second = c.send(s"GET /h2/hello HTTP/1.1\r\nHost: localhost\r\n$upgrade\r\n").readResponse()
        assertEquals(second.status, 200, "a connection's second request is not upgraded")
        assertEquals(second.body, "hello over HTTP/2")
      finally c.close()
    }

object Http2Tests:
  /** The h2spec case a server fails by serving HTTP/1.1 beside h2c on one port, and why. */
  val sharedPort: Map[String, String] = Map(
    "http2/3.5/2" ->
      ("the port serves HTTP/1.1 beside h2c: bytes that are not HTTP/2's preface are an HTTP/1.1 " +
        "request, refused over HTTP/1.1, not with a GOAWAY")
  )

  /** Why h2spec's content-length case may fail where a stream answered early is reset NO_ERROR, its DATA dropped. */
  val lengthRace: Map[String, String] = Map(
    "http2/8.1.2.6/1" ->
      ("h2spec's POST reaches a GET endpoint: answered before its DATA came, the stream is reset " +
        "NO_ERROR after the answer (RFC 9113 §8.1) and later DATA dropped unread, content-length unchecked (a race)")
  )

  private val codec = "Netty's HTTP/2 codec"

  /** The h2spec cases Netty's HTTP/2 codec decides, under Rapier's Netty and Vert.x servers alike, and why. */
  val nettyCodecDecides: Map[String, String] = Map(
    "http2/5.1/6" -> s"$codec leaves a second HEADERS on a stream its client ended to the stream, not STREAM_CLOSED",
    "http2/5.1/12" -> s"$codec resets a stream for a HEADERS on it once closed, with another code than STREAM_CLOSED",
    "http2/5.1.1/2" ->
      (s"$codec can't tell a HEADERS on a lower stream never opened from one on a closed stream: " +
        "it resets the stream, where RFC 9113 §5.1.1 ends the connection")
  )

  private val ProtocolError = 1
  private val EnhanceYourCalm = 11

  private lazy val timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor { r =>
    val t = Thread(r, "rapier-h2-tests")
    t.setDaemon(true)
    t
  }

  /** The messages of HTTP/1.1's refusals a malformed HTTP/2 request gets too. */
  private object RequestSyntaxMessages:
    import rapier.server.spi.RequestSyntax
    val targetChars: String = RequestSyntax.InvalidTargetChars.message
    val targetForm: String = RequestSyntax.InvalidTargetForm.message
    val method: String = RequestSyntax.InvalidMethod.message
    val host: String = RequestSyntax.InvalidHost.message

  /** curl's view of a request: the HTTP version it spoke, and the body. */
  def curlVersion(arguments: String*): (String, String) =
    val (_, output) = TlsTests.curl((arguments :+ "-w" :+ "\n%{http_version}")*)
    val end = output.lastIndexOf('\n')
    (output.substring(end + 1).trim, output.substring(0, math.max(end, 0)))

  private lazy val script: Path =
    val file = Files.createTempFile("rapier-h2-probe", ".py")
    file.toFile.deleteOnExit()
    val in = getClass.getResourceAsStream("/rapier-h2/probe.py")
    try Files.write(file, in.readAllBytes())
    finally in.close()
    file

  /**
   * Runs a case of the raw-frame probe against the server at `port` (`tls:N` for h2 over TLS); its one line of JSON,
   * as a [[Probed]].
   */
  def probe(name: String, port: String, arguments: String*): Probed =
    val command = List("python3", script.toString, name, port) ++ arguments
    val process = ProcessBuilder(command*).redirectErrorStream(true).start()
    process.getOutputStream.close()
    val output =
      Future(String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8))(using ExecutionContext.global)
    if !process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) then
      process.destroyForcibly()
      throw AssertionError(s"probe $name ran past 60 s")
    val text = scala.concurrent.Await.result(output, 5.seconds).trim
    val line = text.linesIterator.toList.lastOption.getOrElse("")
    if !line.startsWith("{") then throw AssertionError(s"probe $name failed (is python3's h2 installed?):\n$text")
    Probed(line)

  /**
   * Runs h2spec (`go install github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible`; on the PATH or in
   * `~/go/bin`) against the server at `port`: the cases that failed, by number, with h2spec's words. A case fails on
   * an answer not in 2 s too: each failed case not `expected` to is run again alone with 10 s, and counted only if it
   * fails again, so that a slow machine isn't taken for a server that doesn't answer.
   */
  def h2spec(port: Int, tls: Boolean, expected: Set[String]): Map[String, String] =
    val report = Files.createTempFile("rapier-h2spec", ".xml")
    try
      val text = runH2spec(port, tls, 2, List("-j", report.toString))._2
      if Files.size(report) == 0 then throw AssertionError(s"h2spec wrote no report:\n$text")
      h2specFailed(report).filter((id, _) => expected(id) || runH2spec(port, tls, 10, List(id))._1 != 0)
    finally Files.deleteIfExists(report)

  // h2spec's exit code and output, with `timeout` seconds for each answer
  private def runH2spec(port: Int, tls: Boolean, timeout: Int, arguments: List[String]): (Int, String) =
    val installed = sys.env.get("PATH").toList.flatMap(_.split(java.io.File.pathSeparator)).map(Path.of(_))
      .:+(Path.of(sys.props("user.home"), "go", "bin"))
      .map(_.resolve("h2spec"))
      .find(Files.isExecutable)
      .getOrElse(throw AssertionError("h2spec is not installed (go install github.com/summerwind/h2spec/cmd/h2spec)"))
    val command = List(installed.toString, "-h", "localhost", "-p", port.toString, "-P", "/h2/hello") ++
      List("-o", timeout.toString) ++ (if tls then List("-t", "-k") else Nil) ++ arguments
    val process = ProcessBuilder(command*).redirectErrorStream(true).start()
    process.getOutputStream.close()
    val output =
      Future(String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8))(using ExecutionContext.global)
    if !process.waitFor(600, java.util.concurrent.TimeUnit.SECONDS) then
      process.destroyForcibly()
      throw AssertionError("h2spec ran past 600 s")
    (process.exitValue, scala.concurrent.Await.result(output, 5.seconds))

  // The failed cases of an h2spec JUnit report: each numbered by its suite's package and its place in the suite
  private def h2specFailed(report: Path): Map[String, String] =
    // h2spec quotes what a server sent, control characters included, which XML 1.0 can't hold
    val text = Files.readString(report).filter(c => c >= ' ' || c == '\n' || c == '\r' || c == '\t')
    val document = javax.xml.parsers.DocumentBuilderFactory
      .newInstance()
      .newDocumentBuilder()
      .parse(org.xml.sax.InputSource(java.io.StringReader(text)))
    val suites = document.getElementsByTagName("testsuite")
    val failed = Map.newBuilder[String, String]
    for i <- 0 until suites.getLength do
      val suite = suites.item(i).asInstanceOf[org.w3c.dom.Element]
      val cases = suite.getElementsByTagName("testcase")
      for j <- 0 until cases.getLength do
        val testCase = cases.item(j).asInstanceOf[org.w3c.dom.Element]
        val failures = testCase.getElementsByTagName("failure")
        val errors = testCase.getElementsByTagName("error")
        val problem = if failures.getLength > 0 then failures.item(0) else errors.item(0)
        if problem != null then
          val id = s"${suite.getAttribute("package")}/${j + 1}"
          failed += id -> s"${testCase.getAttribute("classname")}: ${problem.getTextContent.trim.replace('\n', ' ')}"
    failed.result()

  /** A probe's result: one flat JSON object, read field by field. */
  final case class Probed(raw: String):
    private def field(name: String): Option[String] =
      val pattern = ("\"" + java.util.regex.Pattern.quote(name) + "\": (\"(?:[^\"\\\\]|\\\\.)*\"|[^,}]+)").r
      pattern.findFirstMatchIn(raw).map(_.group(1).trim).filter(_ != "null")
    def int(name: String): Option[Int] = field(name).flatMap(_.toIntOption)
    def double(name: String): Option[Double] = field(name).flatMap(_.toDoubleOption)
    def bool(name: String): Boolean = field(name).contains("true")
    def string(name: String): Option[String] =
      field(name).filter(_.startsWith("\"")).map(s => s.substring(1, s.length - 1).replace("\\\"", "\""))
    override def toString: String = raw

    /**
     * The server ended the connection: a GOAWAY, the client's sending cut off, or the connection reset under it (a
     * server closing with the client's frames still unread resets it, and the client's kernel drops what it had not
     * read, a GOAWAY with it). A server that kept the connection shows none: the probe's read times out.
     */
    def ended: Boolean = int("goaway").isDefined || string("cut").isDefined || string("why").contains("reset")
