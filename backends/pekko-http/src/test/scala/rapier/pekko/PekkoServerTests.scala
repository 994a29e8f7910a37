package rapier.pekko

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.Sink
import rapier.*
import rapier.server.*
import rapier.server.spi.BodyTooLargeException
import rapier.testkit.*

import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, Promise}

/** The shared server test kit, on Rapier's standalone pekko-http server. */
class PekkoServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = PekkoTestServer()

  private lazy val system = ActorSystem("rapier-pekko-source-tests")

  override def afterAll(): Unit =
    Await.ready(system.terminate(), 10.seconds)
    super.afterAll()

  test("a pekko Source body past maxStreamedBodySize fails its reader; the client, still sending, reads the 413"):
    given Materializer = Materializer.matFromSystem(using system)
    val limit = 1024 * 1024
    val read = AtomicLong()
    val failed = Promise[Throwable]()
    val count = endpoint.post.in("count").in(pekkoSourceBody).out(stringBody).serverLogicSuccess { body =>
      val counted = body.runWith(Sink.foreach(chunk => read.addAndGet(chunk.length)))
      counted.failed.foreach(failed.success)(using ExecutionContext.parasitic)
      counted.map(_ => read.get.toString)(using ExecutionContext.parasitic)
    }
    withServerConfig(TestServerConfig(maxStreamedBodySize = limit))(count) { t =>
      val upload = uploadGiB(t, "/count")(())
      val r = upload.response
      assertEquals(r.status, 413)
      assert(r.problem.detail.contains(limit.toString), r.problem.detail)
      assert(upload.readOn, upload.toString)
      assert(Await.result(failed.future, 10.seconds).isInstanceOf[BodyTooLargeException])
      assert(read.get <= limit, s"the reader got ${read.get} bytes")
    }

  // A pull that waits for the client is timed by the body's read deadline. pekko's scheduler keeps a timer until its
  // time even once cancelled, so the deadline has one timer per body, not one per pull: one per chunk, 60 s each under
  // the default deadline, was a steady heap of cancelled timers under a stream of uploads. pekko-http's own timers come
  // and go meanwhile (a few dozen over these uploads, more on a loaded machine), so the test counts what grows with the
  // pieces: a timer per pull would add one per piece, 640 here; per body, about one per upload beside pekko's own.
  test("a streamed body's waiting pulls share one deadline timer, cancelled once the body is read"):
    val counted = endpoint.post.in("count").in(chunksBody).out(stringBody).serverLogicSuccess[Future] { body =>
      var n = 0L
      body.foreach(chunk => n += chunk.remaining).map(_ => n.toString)(using ExecutionContext.parasitic)
    }
    val uploads = 20
    val pieces = 32
    def timers() = LiveInstances("org.apache.pekko.actor.LightArrayRevolverScheduler$TaskHolder")
    withServerConfig(TestServerConfig())(counted) { t =>
      val before = timers()
      val c = t.raw()
      try
        for _ <- 1 to uploads do
          // The body in pieces, each sent once the logic's pull waits for it
          c.send(s"POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: $pieces\r\n\r\n")
          for _ <- 1 to pieces do
            Thread.sleep(3)
            c.send("x")
          assertEquals(c.readResponse().body, pieces.toString)
      finally c.close()
      val added = timers() - before
      assert(added < uploads * pieces / 4, s"$added timers held after $uploads uploads of $pieces pieces each")
    }

  override def unsupported: Map[String, String] = PekkoServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = PekkoServerTests.unsupportedMalformedRequests
  override def unsupportedLegalRequests: Map[String, String] = PekkoServerTests.unsupportedLegalRequests
  override def h2cUpgradeUnserved: Option[String] = PekkoServerTests.h2cUpgradeUnserved
  override def http2RefusedOtherwise: Map[String, String] = PekkoServerTests.http2RefusedOtherwise
  override def h2specFailures: Option[Map[String, String]] = Some(PekkoServerTests.h2spec)
  override def autobahnFailures: Option[Map[String, String]] = Some(Map.empty)

/** The shared server test kit again, over HTTP/2 and TLS: its client speaks h2, its raw connections HTTP/1.1 over TLS. */
class PekkoHttp2ServerTests extends KitTests:
  // On an application's actor system, set up as docs/servers.md says (`withSystem`): one for the whole class, started
  // before any test
  private val system = ActorSystem(
    "application",
    com.typesafe.config.ConfigFactory
      .parseString("pekko.io.tcp.max-received-message-size = 4k")
      .withFallback(com.typesafe.config.ConfigFactory.load())
  )
  val server: TestServer = PekkoTestServer(Some(system))
  override def afterAll(): Unit =
    try super.afterAll()
    finally Await.ready(system.terminate(), 10.seconds)

  override def unsupported: Map[String, String] = PekkoServerTests.unsupported ++ PekkoServerTests.http2Parsed + (
    "an InputStream body read on the server's own thread fails clearly rather than waiting forever" ->
      ("pekko-http resets a request's stream (CANCEL) once its logic stops reading the body: answered before the " +
        "JDK 17 client has sent it all, the client fails the exchange without reading the answer (a race)")
  )
  override def unsupportedMalformedRequests: Map[String, String] = PekkoServerTests.unsupportedMalformedRequests
  override def unsupportedLegalRequests: Map[String, String] = PekkoServerTests.unsupportedLegalRequests
  override def protocol: KitProtocol = KitProtocol.Http2OverTls

/** What pekko-http decides before Rapier sees a request, or after Rapier has answered it, which the kit tests otherwise, and why. */
object PekkoServerTests:

  private val unknownMethod =
    "pekko-http answers a method it doesn't know (PURGE) with its own 501 before Rapier sees the request"

  val unsupported: Map[String, String] = Map(
    "a malformed query string is a 400 for endpoints that read the query" ->
      "pekko-http parses the target's percent-encoding itself and answers a malformed one with its own 400",
    "HTTP/1.0 closes unless asked to keep alive" ->
      "pekko-http writes `Connection: Keep-Alive` to an HTTP/1.0 client it keeps (the kit expects `keep-alive`)",
    "an endpoint without a method serves any, and can read which" -> unknownMethod,
    "metrics: a method outside RFC 9110's is labelled _OTHER" -> unknownMethod,
    "a malformed request is a 400 and the connection closes" ->
      "pekko-http answers a request line it can't read with its own 501 (an unknown method), not 400",
    "connections over the limit are closed at once, and service resumes when one closes" ->
      "pekko-http leaves connections over its limit unaccepted, waiting in the listen backlog, rather than closing them",
    "a request in progress is not cut by the idle timeout" ->
      "pekko-http's idle timeout closes a connection without traffic, also while its request is being served",
    "a streamed response body with the Content-Length its endpoint sets is sent with that length" ->
      ("pekko-http aborts the connection (a reset) when a response's stream ends short of its declared length, so " +
        "the client may lose the bytes sent before"),
    "an echo: a response streamed from the request body it is reading" ->
      ("pekko-http closes the connection after a response that started before its request's body was read to the " +
        "end (an 'early response'), an echo's too")
  )

  val unsupportedMalformedRequests: Map[String, String] = Map.empty

  // Over HTTP/2 no raw target is kept: pekko-http's layer parses :path itself
  private val pathParsed =
    "pekko-http's HTTP/2 layer parses the :path itself and keeps no raw target: it removes dot-segments (a traversal " +
      "becomes the path it resolves to, never past the root) and renders percent-encoding in capitals"
  val http2Parsed: Map[String, String] = Map(
    "the request log writes one line per request with template, status and duration" -> pathParsed,
    "static: a single-page app's fallback at the root, beside the other endpoints" -> pathParsed,
    "static: resources from the class path, a file's and a directory's" -> pathParsed
  )

  val h2cUpgradeUnserved: Option[String] = Some(
    "PekkoServer starts HTTP/2 on a connection's preface or by ALPN: an Upgrade: h2c is answered over HTTP/1.1"
  )

  private val pekko = "pekko-http's HTTP/2 layer"
  private val ignored = s"$pekko drops it without STREAM_CLOSED"
  val h2spec: Map[String, String] = Http2Tests.sharedPort ++ Http2Tests.lengthRace ++ Map(
    "http2/4.1/3" -> s"$pekko ends the connection on a frame with the reserved bit set, which RFC 9113 §4.1 ignores",
    "http2/5.1/5" -> s"DATA on a stream its client ended: $ignored",
    "http2/5.1/6" -> s"HEADERS on a stream its client ended: $ignored",
    "http2/5.1/8" -> s"DATA on a stream its client reset: $ignored",
    "http2/5.1/9" -> s"HEADERS on a stream its client reset: $ignored",
    "http2/5.1/11" -> s"DATA on a closed stream: $ignored",
    "http2/5.1/12" -> s"HEADERS on a closed stream: $ignored",
    "http2/6.1/2" -> s"DATA on a stream neither open nor half-closed (local): $ignored",
    "http2/6.9.1/2" -> s"$pekko lets WINDOW_UPDATEs take the connection's window past 2^31-1",
    "http2/6.9.1/3" -> s"$pekko lets WINDOW_UPDATEs take a stream's window past 2^31-1",
    "http2/6.9.2/2" ->
      (s"$pekko doesn't keep a window a SETTINGS frame made negative: after the next " +
        "WINDOW_UPDATE it sends more DATA than the window holds"),
    "hpack/4.2/1" -> s"$pekko's HPACK decoder takes a table size update at the end of a header block",
    "hpack/5.2/1" -> s"$pekko's HPACK decoder takes a Huffman string padded with more than 7 bits",
    "hpack/5.2/3" -> s"$pekko's HPACK decoder takes a Huffman string holding the EOS symbol"
  )

  private val pekkoParses =
    "pekko-http's HTTP/2 layer parses the request's pseudo-headers itself and ends the connection with PROTOCOL_ERROR"
  val http2RefusedOtherwise: Map[String, String] = Map(
    "path-with-space" -> s"$pekkoParses on a :path it can't make a URI of",
    "path-not-absolute" -> s"$pekkoParses on a :path that is not absolute",
    "method-not-token" -> s"$pekkoParses on a :method that is not a token",
    "bad-authority" -> s"$pekkoParses on an :authority it can't parse"
  )

  val unsupportedLegalRequests: Map[String, String] = Map.empty

/** Rapier's pekko-http server on an actor system of its own, or on the one given. */
final class PekkoTestServer(system: Option[ActorSystem] = None) extends TestServer:
  def name = "pekko-http"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    val options = PekkoServerOptions(config.backend.copy(host = "127.0.0.1"), config.headerReadTimeout)
    val server = PekkoServer(endpoints, options)
    RunningServer(system.fold(server)(server.withSystem).start())
