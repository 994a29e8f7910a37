package rapier.testkit

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets
import java.time.Duration as JDuration
import scala.jdk.CollectionConverters.*

/** A response as tests look at it. Header names are lower case. */
final case class TestResponse(status: Int, headers: Map[String, List[String]], bytes: Array[Byte]):
  def body: String = new String(bytes, StandardCharsets.UTF_8)

  /** The body as an RFC 9457 problem; fails when it is not one. */
  def problem: ProblemBody = ProblemBody.of(this)
  def header(name: String): Option[String] = headers.get(name.toLowerCase(java.util.Locale.ROOT)).flatMap(_.headOption)
  def headerValues(name: String): List[String] = headers.getOrElse(name.toLowerCase(java.util.Locale.ROOT), Nil)
  override def toString: String = s"TestResponse($status, $headers, ${body.take(200)})"

/**
 * Requests over real sockets with the JDK's client, for everything the client doesn't hide: HTTP/1.1 on a plain
 * connection, or HTTP/2 over TLS, as the kit's `protocol` says.
 */
final class TestClient(port: Int, protocol: KitProtocol = KitProtocol.Http1):
  private val client = protocol.client

  def get(path: String, headers: (String, String)*): TestResponse = send("GET", path, null, headers*)
  def post(path: String, body: Array[Byte] | String, headers: (String, String)*): TestResponse =
    send("POST", path, body, headers*)

  def send(method: String, path: String, body: Array[Byte] | String | Null, headers: (String, String)*): TestResponse =
    val publisher = body match
      case null => HttpRequest.BodyPublishers.noBody()
      case s: String => HttpRequest.BodyPublishers.ofString(s, StandardCharsets.UTF_8)
      case bytes: Array[Byte] => HttpRequest.BodyPublishers.ofByteArray(bytes)
    val builder =
      HttpRequest.newBuilder(URI.create(s"${protocol.scheme}://localhost:$port$path")).method(method, publisher)
    headers.foreach((n, v) => builder.header(n, v))
    val response =
      client.send(builder.timeout(JDuration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray())
    TestResponse(
      response.statusCode,
      response.headers.map.asScala.map((k, v) => k.toLowerCase(java.util.Locale.ROOT) -> v.asScala.toList).toMap,
      response.body
    )

/**
 * The protocol the shared kit speaks to a server: its servers started for it, its client, its raw connections. The
 * raw connections speak HTTP/1.1 whatever the protocol, over TLS when it has it.
 */
enum KitProtocol:
  /** HTTP/1.1 on plain connections: the kit as it has always run. */
  case Http1

  /** HTTP/2 over TLS (h2, by ALPN): servers started with TLS and HTTP/2, the client speaking HTTP/2. */
  case Http2OverTls

  def scheme: String = if this == Http1 then "http" else "https"

  /** The version its client speaks, as OpenTelemetry names it. */
  def version: String = if this == Http1 then "1.1" else "2"

  /** The client context of raw connections: null for plain ones. */
  def tls: javax.net.ssl.SSLContext | Null = if this == Http1 then null else KitProtocol.trusting

  /** `config`, for this protocol: TLS and HTTP/2 added where the test set neither. */
  def configure(config: TestServerConfig): TestServerConfig =
    if this == Http1 || config.tls.isDefined then config
    else config.copy(tls = Some(TlsTests.Keys.server), http2 = config.http2.orElse(Some(rapier.server.Http2())))

  def client: HttpClient = if this == Http1 then KitProtocol.http1 else KitProtocol.http2

  /** A client of this protocol's of its own, its connections shared with no other test's. */
  def newClient(): HttpClient = if this == Http1 then KitProtocol.newHttp1() else KitProtocol.newHttp2()

  /**
   * Tests this protocol's client can't run, by name, with the reason; what they check of the server is checked by a
   * protocol test of its own.
   */
  def clientCannot: Map[String, String] = if this == Http1 then Map.empty else KitProtocol.http2Cannot

object KitProtocol:
  // Over HTTP/2, JDK 17's client sends the whole of a request body before it reads the response: one answered early
  // and its stream reset with NO_ERROR (RFC 9113 §8.1) it waits on for window, until its timeout. curl and JDK 25's
  // client read the answer; Http2Tests checks the server's side of it with raw frames.
  private val earlyAnswer =
    "JDK 17's HTTP/2 client waits to send the rest of a body the server has answered (Http2Tests checks the server)"
  private val http2Cannot = List(
    "uploads past the server's disk budget are a 503 with Retry-After, leave no file, and the next one fits",
    "a multipart body is held to maxStreamedBodySize as a whole",
    "a body folded or read with foreach arrives whole and in order, chunk by chunk, without a copy; it is read once",
    "a streamed body's other inputs are decoded first: one that fails is a 400, the body not read",
    "past maxStreamedBodySize a streamed body is a 413, declared or found out mid-body; bytes keep maxBodySize",
    "logic that throws while it reads a streamed body is a 500; nothing is held, the server serves on",
    "compression: a decompression bomb (1 GiB decoded) is a 413 at the decoded limit, the heap never near it"
  ).map(_ -> earlyAnswer).toMap

  private lazy val trusting = TlsTests.Keys.clientContext(withCertificate = false)

  private lazy val http1: HttpClient = newHttp1()
  private lazy val http2: HttpClient = newHttp2()

  private def newHttp1(): HttpClient =
    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(JDuration.ofSeconds(10)).build()

  private def newHttp2(): HttpClient =
    HttpClient
      .newBuilder()
      .version(HttpClient.Version.HTTP_2)
      .sslContext(trusting)
      .connectTimeout(JDuration.ofSeconds(10))
      .build()
