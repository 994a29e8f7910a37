package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.{readFromArray, writeToArray}
import rapier.perf.common.{Order, PerfApi}
import rapier.perf.vanilla.PayloadCodecs.given

import java.nio.charset.StandardCharsets

/**
 * One kind of request the load generator repeats, and how to tell a right answer from a wrong one.
 *
 * @param routes
 *   how many routes a server must have to serve it (128: only the Multi variants)
 * @param streams
 *   whether it needs the streaming routes (see [[ServerSpec.streams]])
 * @param study
 *   a latency study rather than a load: users paced by the suite's own client, latency compared rather than
 *   throughput (see [[Study]])
 * @param newConnections
 *   whether each request asks the server to close its connection after the response (`Connection: close`), so that
 *   every request opens a connection of its own
 * @param headers
 *   request headers beside `Content-Type`
 * @param compressed
 *   whether it needs a server started with compression (see [[ServerSpec.compression]])
 * @param statics
 *   whether it needs a server's static files (see [[ServerSpec.statics]])
 * @param tls
 *   whether it is sent over HTTPS, to a server started with TLS (see [[ServerSpec.tls]]); a TLS server serves only
 *   these, as a plain one serves none of them
 * @param http2
 *   whether it is sent over HTTP/2 (h2c, prior knowledge) by h2load, each user a connection of [[H2load.Streams]]
 *   streams, to a server started with HTTP/2 (see [[ServerSpec.http2]]), which serves only these
 */
final case class Scenario(
    name: String,
    method: String,
    path: String,
    body: Option[Array[Byte]],
    contentType: Option[String],
    routes: Int,
    description: String,
    check: Array[Byte] => Option[String],
    streams: Boolean = false,
    study: Option[Study] = None,
    newConnections: Boolean = false,
    headers: List[(String, String)] = Nil,
    compressed: Boolean = false,
    statics: Boolean = false,
    tls: Boolean = false,
    http2: Boolean = false
):
  def servable(server: ServerSpec): Boolean =
    server.routes >= routes &&
      (!streams || server.streams) && study.forall(server.studies.contains) &&
      (!compressed || server.compression) &&
      (!statics || server.statics) && tls == server.tls &&
      http2 == server.http2

  /** `https` for a TLS scenario, `http` otherwise. */
  def scheme: String = if tls then "https" else "http"

  /** A load scenario: wrk and oha send requests, and throughput is compared. */
  def isLoad: Boolean = study.isEmpty

object Scenarios:
  private def expectText(expected: String): Array[Byte] => Option[String] = bytes =>
    val text = new String(bytes, StandardCharsets.UTF_8)
    if text == expected then None else Some(s"expected '$expected', got '${text.take(80)}'")

  /** Text of `size` ASCII characters (so that characters and bytes count alike). */
  private def text(size: Int): Array[Byte] =
    val alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 ".getBytes(StandardCharsets.US_ASCII)
    Array.tabulate(size)(i => alphabet(i * 7 % alphabet.length))

  /** Bytes of every value, in a fixed pseudo-random order. */
  private def bytes(size: Int): Array[Byte] =
    val random = java.util.Random(20240131L)
    val b = new Array[Byte](size)
    random.nextBytes(b)
    b

  private def same(expected: => Array[Byte]): Array[Byte] => Option[String] = answer =>
    if java.util.Arrays.equals(answer, expected) then None
    else Some(s"not the file: ${answer.length} bytes, expected ${expected.length}")

  private val order = Order.sample(Order.LinesFor64KB)
  private val orderJson = writeToArray(order)

  private val fiveMB = 5 * 1024 * 1024
  private val hundredMB = 100 * 1024 * 1024

  private lazy val file = PerfApi.fileContent

  private val simpleGet =
    Scenario("SimpleGet", "GET", "/path0/4", None, None, 1, "GET /path0/4", expectText(PerfApi.ok(4)))
  private val simpleGetNewConnection = Scenario(
    "SimpleGetNewConnection",
    "GET",
    "/path0/4",
    None,
    None,
    1,
    "GET /path0/4 with Connection: close, a new connection for every request",
    expectText(PerfApi.ok(4)),
    newConnections = true
  )
  private val postBytes = Scenario(
    "PostBytes",
    "POST",
    "/pathBytes0",
    Some(bytes(256)),
    Some("application/octet-stream"),
    1,
    "POST /pathBytes0 with 256 bytes",
    expectText(PerfApi.ok(256))
  )

  /** `plain` sent over HTTP/2 (h2c) to a server that speaks it, named `name`. */
  private def overH2(plain: Scenario, name: String): Scenario =
    plain.copy(name = name, description = s"over HTTP/2 (h2c): ${plain.description}", http2 = true)

  /** `plain` sent over HTTP/2 and TLS (h2 by ALPN) to a TLS server that speaks it, named `name`. */
  private def overH2Tls(plain: Scenario, name: String): Scenario =
    plain.copy(name = name, description = s"over HTTP/2 and TLS (h2): ${plain.description}", http2 = true, tls = true)

  /** `plain` sent over HTTPS to a TLS server, named `name`. */
  private def overTls(plain: Scenario, name: String): Scenario =
    plain.copy(name = name, description = s"over HTTPS (TLS 1.3): ${plain.description}", tls = true)

  val all: List[Scenario] = List(
    simpleGet,
    simpleGetNewConnection,
    Scenario(
      "SimpleGetMultiRoute",
      "GET",
      "/path127/4",
      None,
      None,
      128,
      "GET /path127/4 on a server with 128 routes",
      expectText(PerfApi.ok(4))
    ),
    postBytes,
    overTls(simpleGet, "SimpleGetTls"),
    // A handshake for every request: handshakes per second
    overTls(simpleGetNewConnection, "SimpleGetTlsNewConnection"),
    overTls(postBytes, "PostBytesTls"),
    overH2(simpleGet, "SimpleGetH2"),
    overH2(postBytes, "PostBytesH2"),
    overH2Tls(simpleGet, "SimpleGetH2Tls"),
    overH2Tls(postBytes, "PostBytesH2Tls"),
    Scenario(
      "PostString",
      "POST",
      "/path0",
      Some(text(256)),
      Some(PerfApi.TextPlain),
      1,
      "POST /path0 with 256 characters",
      expectText(PerfApi.ok(256))
    ),
    Scenario(
      "PostLongBytes",
      "POST",
      "/pathBytes0",
      Some(bytes(fiveMB)),
      Some("application/octet-stream"),
      1,
      "POST /pathBytes0 with 5 MB",
      expectText(PerfApi.ok(fiveMB))
    ),
    Scenario(
      "PostLongString",
      "POST",
      "/path0",
      Some(text(fiveMB)),
      Some(PerfApi.TextPlain),
      1,
      "POST /path0 with 5 MB of text",
      expectText(PerfApi.ok(fiveMB))
    ),
    Scenario(
      "PostJson",
      "POST",
      "/pathJson0",
      Some(orderJson),
      Some(PerfApi.Json),
      1,
      s"POST /pathJson0 with a ${orderJson.length / 1024} KB JSON order, decoded and encoded back",
      answer =>
        try if readFromArray[Order](answer) == order then None else Some("the order came back changed")
        catch case e: Exception => Some(s"not an order: ${e.getMessage.take(80)}")
    ),
    Scenario(
      "GetJsonGzip",
      "GET",
      "/pathJson0",
      None,
      None,
      1,
      s"GET /pathJson0 with Accept-Encoding: gzip, a ${orderJson.length / 1024} KB JSON order encoded and gzipped",
      answer =>
        try
          val json = java.util.zip.GZIPInputStream(java.io.ByteArrayInputStream(answer)).readAllBytes()
          if readFromArray[Order](json) == PerfApi.order then None else Some("another order")
        catch case e: Exception => Some(s"not a gzipped order: ${e.getMessage.take(80)}"),
      headers = List("Accept-Encoding" -> "gzip"),
      compressed = true
    ),
    Scenario(
      "PostStream",
      "POST",
      "/pathStream0",
      Some(bytes(fiveMB)),
      Some("application/octet-stream"),
      1,
      "POST /pathStream0 with 5 MB, consumed as a stream",
      expectText(PerfApi.ok(fiveMB)),
      streams = true
    ),
    Scenario(
      "PostStream100MB",
      "POST",
      "/pathStream0",
      Some(bytes(hundredMB)),
      Some("application/octet-stream"),
      1,
      "POST /pathStream0 with 100 MB, consumed as a stream",
      expectText(PerfApi.ok(hundredMB)),
      streams = true
    ),
    Scenario(
      "GetFile",
      "GET",
      "/pathFile0",
      None,
      None,
      1,
      "GET /pathFile0: a 5 MB file from disk",
      same(file),
      streams = true
    ),
    Scenario(
      "GetStaticSmall",
      "GET",
      s"/static/${PerfApi.StaticSmall}",
      None,
      None,
      1,
      s"GET /static/${PerfApi.StaticSmall}: a 4 KiB file by the server's own file service",
      same(PerfApi.staticSmallContent),
      statics = true
    ),
    Scenario(
      "GetStaticLarge",
      "GET",
      s"/static/${PerfApi.StaticLarge}",
      None,
      None,
      1,
      s"GET /static/${PerfApi.StaticLarge}: a 5 MB file by the server's own file service",
      same(file),
      statics = true
    ),
    latency(
      "WebSocketLatency",
      Study.Ticks,
      "WebSocket /ws/ts: each user sends a message every interval, answered on the server's next 100 ms tick with the " +
        "time then; latency to p99.9999 beside the JVMs' hiccups"
    ),
    latency(
      "WebSocketEcho",
      Study.Echo,
      "WebSocket /ws/echo: each user sends its own time every interval, written back; latency to p99.9999"
    ),
    latency(
      "SseLatency",
      Study.Events,
      "GET /sse/ts: server-sent events, one per user at every 100 ms tick, carrying the time then; delivery latency " +
        "to p99.9999"
    )
  )

  /** A study's scenario: its answers are checked by its client (every user answered), not one by one. */
  private def latency(name: String, study: Study, description: String) =
    Scenario(name, "GET", study.path, None, None, 1, description, _ => None, study = Some(study))

  def byName(name: String): Option[Scenario] = all.find(_.name == name)

  def select(patterns: List[String]): List[Scenario] = all.filter(s => patterns.exists(p => Glob.matches(p, s.name)))
