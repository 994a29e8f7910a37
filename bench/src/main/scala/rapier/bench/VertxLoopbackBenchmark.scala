package rapier.bench

import io.vertx.core.buffer.Buffer
import io.vertx.core.http.{HttpMethod, HttpServer, HttpServerOptions, HttpServerRequest}
import io.vertx.core.{Handler, Vertx, VertxOptions}
import org.openjdk.jmh.annotations.*
import rapier.*
import rapier.vertx.{VertxServer, VertxServerOptions}

import java.io.{InputStream, OutputStream}
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit

/**
 * A whole HTTP exchange with a Vert.x server over a loopback connection kept alive: one request written, its response
 * read, by a client that allocates nothing per request. Once with Rapier's server, once with the plain Vert.x handler
 * one would write by hand for the same two endpoints (the perf suite's vanilla server reads bodies the same way).
 * Vert.x has no socket-free channel to drive, so the time includes the loopback round trip; the bytes allocated per
 * request (`-prof gc`, all threads) are the server's, and their difference is what Rapier adds on Vert.x.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.MICROSECONDS)
class VertxLoopbackBenchmark:
  import BenchRequests.{postBytes, simpleGet}

  private var vertx: Vertx = null
  private var rapier: VertxServer.Binding = null
  private var vanilla: HttpServer = null
  private var rapierClient: LoopbackClient = null
  private var vanillaClient: LoopbackClient = null

  @Setup
  def setup(): Unit =
    vertx = Vertx.vertx(VertxOptions().setEventLoopPoolSize(1))
    val options = VertxServerOptions.default.withHost("127.0.0.1").withPort(0).modifyServerOptions(_.withoutRequestLog)
    rapier = VertxServer(BenchRequests.endpoints, options, Some(vertx)).start()
    vanilla = vertx.createHttpServer(HttpServerOptions().setHost("127.0.0.1").setPort(0).setTcpNoDelay(true))
      .requestHandler(PlainVertxHandler())
    vanilla.listen().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
    rapierClient = LoopbackClient(rapier.port)
    vanillaClient = LoopbackClient(vanilla.actualPort)

  @TearDown
  def tearDown(): Unit =
    rapierClient.close()
    vanillaClient.close()
    rapier.stop()
    vanilla.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
    vertx.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)

  @Benchmark def rapierSimpleGet(): Int = rapierClient.exchange(simpleGet)
  @Benchmark def vanillaSimpleGet(): Int = vanillaClient.exchange(simpleGet)
  @Benchmark def rapierPostBytes(): Int = rapierClient.exchange(postBytes)
  @Benchmark def vanillaPostBytes(): Int = vanillaClient.exchange(postBytes)

/**
 * A blocking HTTP/1.1 client on one connection, for responses with a Content-Length: reads the head into a buffer it
 * keeps, finds the length, reads the body. Fails on anything but a 200, so a benchmark can't measure an error path.
 */
private final class LoopbackClient(port: Int):
  private val socket = Socket()
  socket.setTcpNoDelay(true)
  socket.connect(InetSocketAddress("127.0.0.1", port))
  private val in: InputStream = socket.getInputStream
  private val out: OutputStream = socket.getOutputStream
  private val buffer = new Array[Byte](16384)

  /** Sends one request, reads its whole response; returns the response's size in bytes. */
  def exchange(request: Array[Byte]): Int =
    out.write(request)
    out.flush()
    var filled = 0
    var headEnd = -1
    while headEnd < 0 do
      val n = in.read(buffer, filled, buffer.length - filled)
      if n < 0 then throw IllegalStateException("The server closed the connection")
      filled += n
      headEnd = LoopbackClient.indexOfBlankLine(buffer, filled)
    // "HTTP/1.1 200"
    if buffer(9) != '2' || buffer(10) != '0' || buffer(11) != '0' then
      throw IllegalStateException(String(buffer, 0, headEnd, StandardCharsets.US_ASCII))
    val total = headEnd + LoopbackClient.contentLength(buffer, headEnd)
    while filled < total do
      val n = in.read(buffer, filled, total - filled)
      if n < 0 then throw IllegalStateException("The server closed the connection")
      filled += n
    total

  def close(): Unit = socket.close()

private object LoopbackClient:
  private val Name = "content-length:".getBytes(StandardCharsets.US_ASCII)

  /** The index just past the head's blank line, or -1. */
  def indexOfBlankLine(b: Array[Byte], n: Int): Int =
    var i = 3
    while i < n && !(b(i) == '\n' && b(i - 1) == '\r' && b(i - 2) == '\n' && b(i - 3) == '\r') do i += 1
    if i < n then i + 1 else -1

  /** The Content-Length the head up to `end` gives; without allocating. */
  def contentLength(b: Array[Byte], end: Int): Int =
    var i = 0
    var found = -1
    while found < 0 && i < end - Name.length do
      if (i == 0 || b(i - 1) == '\n') && matches(b, i) then found = i + Name.length
      i += 1
    if found < 0 then throw IllegalStateException("No Content-Length in the response")
    var j = found
    while b(j) == ' ' do j += 1
    var length = 0
    while b(j) >= '0' && b(j) <= '9' do
      length = length * 10 + (b(j) - '0')
      j += 1
    length

  private def matches(b: Array[Byte], at: Int): Boolean =
    var k = 0
    while k < Name.length && Character.toLowerCase(b(at + k).toInt) == Name(k) do k += 1
    k == Name.length

/** The plain Vert.x handler for the same two endpoints, reading the body with `request.body()`. */
private final class PlainVertxHandler extends Handler[HttpServerRequest]:
  def handle(request: HttpServerRequest): Unit =
    val path = request.path
    if request.method == HttpMethod.GET && path.startsWith("/path0/") then
      respond(request, s"ok ${path.substring(7).toInt}")
    else if request.method == HttpMethod.POST && path == "/pathBytes0" then
      request.body.onSuccess((body: Buffer) => respond(request, s"ok ${body.getBytes.length}"))
    else request.response.setStatusCode(404).end()

  private def respond(request: HttpServerRequest, text: String): Unit =
    request.response.putHeader("Content-Type", "text/plain; charset=UTF-8").end(text)
