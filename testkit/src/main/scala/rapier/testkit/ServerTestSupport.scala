package rapier.testkit

import rapier.server.ServerEndpoint

import scala.concurrent.Future
import scala.concurrent.duration.*

/**
 * The base of the shared server test kit: starts the backend under test for each test, over real sockets, and
 * fails the suite if Netty reports a leaked buffer.
 *
 * A backend may declare tests it can't pass, each with its reason, in `unsupported`: they are reported as ignored,
 * never silently dropped.
 */
abstract class ServerTestSupport extends munit.FunSuite:
  LeakDetection.install()

  /** The backend under test. */
  def server: TestServer

  /** The protocol the kit speaks to the servers it starts (see [[KitProtocol]]). */
  def protocol: KitProtocol = KitProtocol.Http1

  /** Tests this backend can't pass, by name, with the reason. */
  def unsupported: Map[String, String] = Map.empty

  /**
   * Cases of [[MalformedRequests]] this backend's server can't refuse as the kit expects, by name, with the reason
   * (a request its parser normalizes before the backend sees it, a status its parser answers by itself).
   */
  def unsupportedMalformedRequests: Map[String, String] = Map.empty

  /** Requests of [[MalformedRequests.legal]] this backend's server refuses by itself, by name, with the reason. */
  def unsupportedLegalRequests: Map[String, String] = Map.empty

  override def munitTimeout: Duration = 90.seconds

  /** Why none of the tests can run on this machine (a JDK too old for the backend), if so: each is then skipped. */
  def cannotRun: Option[String] = None

  /**
   * The class that runs this server's [[AnyStyle]] tests, if another one does: a class running the kit on the same
   * server with logic in another style names the one with `Future` logic. Those tests are then ignored here, saying
   * where they run.
   */
  def anyStyleTestedIn: Option[String] = None

  /** A test whose outcome the logic's style can't change (see [[AnyStyle]]). */
  def anyStyle(name: String)(using munit.Location): munit.TestOptions = munit.TestOptions(name).tag(AnyStyle)

  override def munitTests(): Seq[Test] =
    super.munitTests().map { t =>
      val skipped = cannotRun.map(reason => s"skipped: $reason")
      val cannot = unsupported.get(t.name).map(reason => s"unsupported on ${server.name}: $reason")
      val clientCannot = protocol.clientCannot.get(t.name).map(reason => s"the kit's client can't: $reason")
      val layer = anyStyleTestedIn.filter(_ => t.tags(AnyStyle)).map(AnyStyle.testedIn)
      skipped.orElse(cannot).orElse(clientCannot).orElse(layer) match
        case Some(why) => t.withName(s"${t.name} ($why)").tag(munit.Ignore)
        case None => t
    }

  /** Runs `body` against a server with `endpoints` and the default test configuration. */
  def withServer[T](endpoints: ServerEndpoint[Future]*)(body: Target => T): T =
    withServerConfig(TestServerConfig())(endpoints*)(body)

  /** Runs `body` against a server with `endpoints` and `config`; the server stops afterwards, whatever happens. */
  def withServerConfig[T](config: TestServerConfig)(endpoints: ServerEndpoint[Future]*)(body: Target => T): T =
    val running = server.start(endpoints.toList, protocol.configure(config))
    try body(Target(running, protocol))
    finally running.stop()

  /** Waits up to 10 s for `condition`, which another thread makes true (the server's, here); fails with `what`. */
  def eventually(condition: => Boolean, what: => String): Unit =
    val deadline = System.nanoTime + 10.seconds.toNanos
    while !condition && System.nanoTime < deadline do Thread.sleep(10)
    assert(condition, s"not so within 10 s: $what")

  /** Waits up to 10 s for `f`, which another thread completes; fails with `what`. */
  def await[T](f: Future[T], what: String): T =
    try scala.concurrent.Await.result(f, 10.seconds)
    catch case _: java.util.concurrent.TimeoutException => fail(s"not so within 10 s: $what")

  /**
   * Posts a chunked body of up to 1 GiB, 64 KiB a chunk, to `path` over a raw connection, reading the response
   * meanwhile, until the server stops taking it; `sampled` runs after each chunk. The response (within 10 s of the
   * last chunk), how many bytes of body went out, and for how long the client sent.
   */
  def uploadGiB(t: Target, path: String)(sampled: => Unit): ServerTestSupport.Upload =
    val c = t.raw()
    try
      c.send(s"POST $path HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
      val answer = Future(c.readResponse())(using scala.concurrent.ExecutionContext.global)
      val startedAt = System.nanoTime
      val chunk = ("10000\r\n" + "x" * 65536 + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII)
      var sent = 0L
      var writing = true
      while writing && sent < ServerTestSupport.GiB do
        writing = scala.util.Try(c.send(chunk)).isSuccess
        if writing then sent += 65536
        sampled
      val sending = (System.nanoTime - startedAt) / 1_000_000
      ServerTestSupport.Upload(await(answer, "the response to the chunked body"), sent, sending)
    finally c.close()

  override def afterAll(): Unit =
    super.afterAll()
    val leaks = LeakDetection.leaksSoFar()
    if leaks.nonEmpty then fail(s"Netty reported ${leaks.size} leak(s):\n${leaks.mkString("\n")}")

object ServerTestSupport:
  private val GiB = 1L << 30

  /**
   * A 1 GiB upload as [[ServerTestSupport.uploadGiB]] made it. A server that refuses the body at a limit should read on,
   * and drop, what still comes for a while (a linger of 2 s): a connection closed at once is reset under the client,
   * which may lose the refusal, at once. `readOn` says the server read on, by time rather than by bytes, which a
   * loaded machine's TLS makes few: the client sent the whole GiB, or went on sending for a second (the limit is
   * reached in milliseconds).
   */
  final case class Upload(response: TestResponse, sent: Long, sendingMillis: Long):
    def readOn: Boolean = sent >= GiB || sendingMillis >= 1000
    override def toString: String = s"$sent bytes sent in $sendingMillis ms"

/**
 * Tags a test whose outcome the logic's style can't change: what the server and the interpreter do with a request's
 * bytes before the logic has it and with a response's once it answered (framing, limits, deadlines, decoding inputs,
 * routing, negotiation, CORS, compression, static files, TLS, HTTP/2, WebSocket frames), and the client's side of a
 * call. It runs once per server. The tests of what the logic's style can change stay untagged: the logic answering
 * later, failing, being cancelled or stopped in flight, its security, streams, WebSockets, SSE, metrics and traces.
 */
object AnyStyle extends munit.Tag("any-style"):
  def testedIn(className: String): String = s"the same whatever the logic's style: tested in $className"

/** A running server as a test sees it: a client for it, raw connections to it, and a way to stop it early. */
final class Target(running: RunningServer, protocol: KitProtocol = KitProtocol.Http1):
  val port: Int = running.port
  private val client = TestClient(port, protocol)

  def get(path: String, headers: (String, String)*): TestResponse = client.get(path, headers*)
  def send(method: String, path: String, body: Array[Byte] | String | Null, headers: (String, String)*): TestResponse =
    client.send(method, path, body, headers*)
  def post(path: String, body: Array[Byte] | String, headers: (String, String)*): TestResponse =
    client.post(path, body, headers*)

  /** A new raw connection. */
  def raw(): RawHttp = RawHttp(port, tls = protocol.tls)

  /** Sends `request` on a new raw connection and reads one response. */
  def rawExchange(request: String): TestResponse =
    val c = raw()
    try c.send(request).readResponse()
    finally c.close()

  /** Bytes of request bodies the server holds now, by its own count. */
  def bodyBytesHeld: Long = running.bodyBytesHeld

  /** Stops the server now (the test kit's own stop afterwards does nothing more). */
  def stop(): Unit = running.stop()
