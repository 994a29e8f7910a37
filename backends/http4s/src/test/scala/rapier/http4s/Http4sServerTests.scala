package rapier.http4s

import cats.effect.IO
import rapier.cats.{CatsKit, CatsTests}
import rapier.server.ServerEndpoint
import rapier.testkit.*

import scala.concurrent.duration.*

/** The shared server test kit on Rapier's standalone Ember server, every kit endpoint's logic run as `IO`. */
class Http4sServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = Http4sTestServer

  override def unsupported: Map[String, String] = Http4sServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = Http4sServerTests.unsupportedMalformedRequests
  override def unsupportedLegalRequests: Map[String, String] = Http4sServerTests.unsupportedLegalRequests
  override def h2cUpgradeUnserved: Option[String] = Http4sServerTests.h2cUpgradeUnserved
  override def http2RefusedOtherwise: Map[String, String] = Http4sServerTests.http2RefusedOtherwise
  override def h2specFailures: Option[Map[String, String]] = Some(Http4sServerTests.h2spec)
  override def autobahnFailures: Option[Map[String, String]] = Some(Map.empty)

/** The shared server test kit again, over HTTP/2 and TLS: its client speaks h2, its raw connections HTTP/1.1 over TLS. */
class Http4sHttp2ServerTests extends KitTests:
  def server: TestServer = Http4sTestServer

  override def unsupported: Map[String, String] = Http4sServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = Http4sServerTests.unsupportedMalformedRequests
  override def unsupportedLegalRequests: Map[String, String] = Http4sServerTests.unsupportedLegalRequests
  override def protocol: KitProtocol = KitProtocol.Http2OverTls

/** What `IO` logic and fs2 bodies must do on Ember. */
class Http4sCatsTests extends CatsTests:
  def server: CatsKit.CatsTestServer = Http4sTestServer

  override def unsupported: Map[String, String] = Map(
    "a client that goes away cancels its request's fiber, and the finalizers and Resources around it run" ->
      Http4sServerTests.clientGone,
    "an upload's file is deleted when its client goes away and its fiber is cancelled" -> Http4sServerTests.clientGone,
    "client: an IO call cancelled while it waits abandons its exchange: the server sees its client go" ->
      Http4sServerTests.clientGone
  )

/** What Ember decides before Rapier sees a request, or after Rapier has answered it, which the kit tests otherwise, and why. */
object Http4sServerTests:
  val h2cUpgradeUnserved: Option[String] = Some(
    "Ember's HTTP/2 layer starts on a connection's preface only: an Upgrade: h2c is answered over HTTP/1.1"
  )
  val http2RefusedOtherwise: Map[String, String] = Map(
    "path-with-space" -> "Ember's HTTP/2 layer resets a stream whose :path it can't make a URI of",
    "method-not-token" -> "Ember's HTTP/2 layer resets a stream whose :method it can't make a method of",
    "value-with-control" ->
      ("Ember's HTTP/2 layer takes a field value with a control character, and its app can't " +
        "reset a stream: Rapier answers 400 with HTTP/1.1's problem, and the stream ends")
  )
  private val ember = "Ember's HTTP/2 layer"
  val h2spec: Map[String, String] = Http2Tests.sharedPort ++ Http2Tests.lengthRace ++ Map(
    "generic/2/4" ->
      s"$ember may end the connection on an RST_STREAM for a stream its client had ended, as it answers it (a race)",
    "http2/5.1/11" -> s"$ember drops DATA on a closed stream without STREAM_CLOSED",
    "http2/8.1/1" -> s"$ember takes a second HEADERS without END_STREAM as trailers, not as a malformed request",
    "http2/8.1.2.1/3" -> s"$ember takes pseudo-header fields in trailers",
    "hpack/4.2/1" -> s"$ember's HPACK decoder takes a table size update at the end of a header block",
    "hpack/5.2/1" -> s"$ember's HPACK decoder takes a Huffman string padded with more than 7 bits"
  )
  val clientGone = "Ember reads nothing from a connection while its request's logic runs, so it sees the " +
    "client leave only when it writes the response"
  private val noInterim = "Ember has no interim responses: it never sends 100 Continue, and a client waiting for one " +
    "sends its body after its own delay"
  private val stops = "Ember's stop waits for every connection, a keep-alive one idle between requests included, " +
    "until it ends or the shutdown timeout passes; Rapier can't reach Ember's connections to close the idle ones"

  val unsupported: Map[String, String] = Map(
    "messages in 1-byte fragments are joined, and fragments never finished hold their bytes, not an object each" ->
      ("Ember decodes each read of a WebSocket into a chunk of frame objects (some 100 bytes each) and holds the last " +
        "until more bytes come: a read of 1-byte fragments (up to 256 KiB, 37,000 frames) stays held as frames, " +
        "which Rapier's joiner never sees"),
    "a malformed query string is a 400 for endpoints that read the query" ->
      "Ember parses the target's percent-encoding itself and answers a malformed one with its own 400",
    "an expectation of 100-continue gets 100 Continue, unless the body is too large" -> noInterim,
    "Expect: 100-continue on a streamed body is answered at the logic's first read, not before" -> noInterim,
    "a connection serves request after request" ->
      "Ember adds `Connection: keep-alive` to every response on a connection it keeps",
    "connections over the limit are closed at once, and service resumes when one closes" ->
      "Ember leaves connections over its limit unaccepted, waiting in the listen backlog, rather than closing them",
    "stopping lets requests in progress finish, closing their connections afterwards" -> stops,
    "stopping under load: every request accepted gets its whole response, later ones 503 or a refusal" -> stops,
    "a streamed response body with the Content-Length its endpoint sets is sent with that length" ->
      ("Ember gathers " +
        "a response's first 32 KiB before writing it: a body ending short of its length within them sends nothing at " +
        "all before the connection closes, where the kit expects the bytes there were"),
    "stopping does not wait past the shutdown timeout" ->
      ("the stop returns in time, but a request whose logic " +
        "never completes keeps its connection open: past the shutdown timeout Ember's release is abandoned, not finished")
  )

  val unsupportedMalformedRequests: Map[String, String] = Map.empty

  val unsupportedLegalRequests: Map[String, String] = Map.empty

object Http4sTestServer extends CatsKit.CatsTestServer:
  def name = "http4s"

  def startIO(endpoints: List[ServerEndpoint[IO]], config: TestServerConfig): RunningServer =
    CatsKit.running(Http4sServer[IO](endpoints, options(config)).start())

  /**
   * Ember's stop waits until the shutdown timeout for every connection, the kit client's idle keep-alive ones included:
   * at the kit's quick stop of a second, every test would end with a second's wait. A test that sets no timeout gets a
   * tenth of it here, enough for what it still runs to finish; the tests of stopping set their own.
   */
  def options(config: TestServerConfig): Http4sServerOptions =
    val shutdownTimeout = config.shutdownTimeout.getOrElse(100.millis)
    Http4sServerOptions(
      config.backend.copy(host = "127.0.0.1", shutdownTimeout = shutdownTimeout),
      headerReadTimeout = config.headerReadTimeout
    )
