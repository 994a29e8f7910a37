package rapier.vertx

import rapier.server.ServerEndpoint
import rapier.testkit.*

import scala.concurrent.Future

/** The shared server test kit, on Vert.x. */
class VertxServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = VertxTestServer

  override def unsupported: Map[String, String] = VertxServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = VertxServerTests.unsupportedMalformedRequests
  override def h2cUnserved: Option[String] = VertxServerTests.h2cUnserved
  override def http2RefusedOtherwise: Map[String, String] = VertxServerTests.http2RefusedOtherwise
  override def h2specFailures: Option[Map[String, String]] = Some(Http2Tests.nettyCodecDecides)
  override def autobahnFailures: Option[Map[String, String]] = Some(VertxServerTests.autobahn)

  // VertxServer's own idle timeout counts a request as in progress from its head to its response's end: a streamed
  // response's end and a file's must end it too, or the connection would never close.
  test("an idle connection is closed after the idle timeout, after a streamed response and a file too"):
    import rapier.*
    import rapier.server.*
    import scala.concurrent.duration.*
    val streamed = endpoint.get.in("streamed").out(inputStreamBody).serverLogicSuccess[Future](_ =>
      Future.successful(java.io.ByteArrayInputStream("streamed".getBytes))
    )
    val file = java.nio.file.Files.createTempFile("idle", ".txt")
    java.nio.file.Files.writeString(file, "a file")
    val sent = endpoint.get.in("file").out(fileBody).serverLogicSuccess[Future](_ => Future.successful(file))
    try
      withServerConfig(TestServerConfig(idleTimeout = 300.millis))(streamed, sent) { t =>
        for (path, body) <- List("/streamed" -> "streamed", "/file" -> "a file") do
          val c = t.raw()
          try
            c.send(s"GET $path HTTP/1.1\r\nHost: x\r\n\r\n")
            assertEquals(c.readResponse().body, body)
            assert(c.closedByServer(3000), s"$path: the connection stayed open")
          finally c.close()
      }
    finally java.nio.file.Files.deleteIfExists(file)

/** The shared server test kit again, over HTTP/2 and TLS: its client speaks h2, its raw connections HTTP/1.1 over TLS. */
class VertxHttp2ServerTests extends KitTests:
  def server: TestServer = VertxTestServer
  override def protocol: KitProtocol = KitProtocol.Http2OverTls

/** What Vert.x can't do that the kit tests, and why: shared by every way Rapier runs on Vert.x. */
object VertxServerTests:
  private val wholeFrames = "Vert.x hands a frame to Rapier only once it is whole, and no byte beneath it: invalid " +
    "UTF-8 inside one frame still arriving is refused at the frame's end (Autobahn's non-strict)"
  val autobahn: Map[String, String] = Map("6.4.3" -> wholeFrames, "6.4.4" -> wholeFrames)

  val h2cUnserved: Option[String] = Some(
    "Vert.x tells h2c from HTTP/1.1 only after decoding a connection's first request with its own decoder, where " +
      "Rapier's strict one must read every request: VertxServer serves HTTP/2 over TLS only"
  )
  val http2RefusedOtherwise: Map[String, String] = Map(
    "bad-authority" -> "Vert.x resets a stream whose :authority it can't parse before any handler sees the request",
    "host-differs" -> "Vert.x resets a stream whose Host differs from its :authority before any handler sees it",
    "method-not-token" ->
      ("Vert.x makes a method of a HEADERS frame with Netty's, which throws on one that is not a " +
        "token: the connection ends with it")
  )
  private val headersFirst =
    "Vert.x hands a request over once its headers are parsed, and has no deadline for reading them: an HttpServer " +
      "set up by the application keeps Vert.x's decoder, not Rapier's, which VertxServer puts in its place"

  /** What Rapier's own `VertxServer` can't do: nothing the kit tests. */
  val unsupported: Map[String, String] = Map.empty

  /** What Rapier mounted on an application's own `HttpServer` can't do beyond that. */
  val unsupportedMounted: Map[String, String] = Map(
    "a client trickling its headers is answered 408 at the header deadline, and closed" -> headersFirst,
    "a client sending only empty lines is closed at the header deadline" -> headersFirst,
    "while 500 slowloris connections trickle their headers, requests are served, and the deadline closes them all" ->
      headersFirst
  )

  val unsupportedMalformedRequests: Map[String, String] = Map.empty

object VertxTestServer extends TestServer:
  def name = "vertx"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    RunningServer(VertxServer(endpoints, options(config)).start())

  def options(config: TestServerConfig): VertxServerOptions =
    VertxServerOptions(config.backend, headerReadTimeout = config.headerReadTimeout)
