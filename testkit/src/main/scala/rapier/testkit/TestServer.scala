package rapier.testkit

import rapier.server.{BackendOptions, Binding, ServerEndpoint, ServerOptions}

import scala.concurrent.Future
import scala.concurrent.duration.*

/**
 * What the shared test kit needs from a backend: start a server on a free port with some endpoints and limits. A
 * backend's test suite implements this in a few lines.
 */
trait TestServer:
  /** The backend's name, for test names and messages. */
  def name: String

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer

/** A started server. */
trait RunningServer:
  def port: Int

  /** Stops gracefully, as the backend does in production. */
  def stop(): Unit

  /** Bytes of request bodies the server holds now, by its own count, before their requests reach the endpoints. */
  def bodyBytesHeld: Long

object RunningServer:
  /** A server started the usual way, through its backend's builder. */
  def apply(binding: Binding): RunningServer = new RunningServer:
    def port: Int = binding.port
    def stop(): Unit = binding.stop()
    def bodyBytesHeld: Long = binding.bodyBytesHeld

/**
 * The limits and options a test asks for; backends map them onto their own options. A test that sets no shutdown
 * timeout gets a short one, as every test stops its server with the client's keep-alive connections open (a backend
 * that waits for idle connections waits that long): [[TestServerConfig.QuickStop]], or shorter where a backend's test
 * server says so; the tests of stopping itself set theirs, and get exactly that.
 */
final case class TestServerConfig(
    serverOptions: ServerOptions = ServerOptions.default.withoutRequestLog,
    maxBodySize: Long = 10L * 1024 * 1024,
    maxStreamedBodySize: Long = Long.MaxValue,
    maxBodyMemory: Option[Long] = None,
    maxInitialLineLength: Int = 4096,
    maxHeaderSize: Int = 8192,
    headerReadTimeout: Duration = 10.seconds,
    bodyReadTimeout: Duration = 30.seconds,
    idleTimeout: Duration = 30.seconds,
    maxConnections: Int = 10000,
    shutdownTimeout: Option[FiniteDuration] = None,
    tls: Option[rapier.server.Tls] = None,
    http2: Option[rapier.server.Http2] = None
):
  /** The options every backend shares, as this test asks for them, on a free port. */
  def backend: BackendOptions = BackendOptions(
    port = 0,
    maxBodySize = maxBodySize,
    maxStreamedBodySize = maxStreamedBodySize,
    maxBodyMemory = maxBodyMemory,
    maxInitialLineLength = maxInitialLineLength,
    maxHeaderSize = maxHeaderSize,
    bodyReadTimeout = bodyReadTimeout,
    idleTimeout = idleTimeout,
    shutdownTimeout = shutdownTimeout.getOrElse(TestServerConfig.QuickStop),
    maxConnections = maxConnections,
    tls = tls,
    http2 = http2,
    serverOptions = serverOptions
  )

object TestServerConfig:
  /** The shutdown timeout of a test that sets none. */
  val QuickStop: FiniteDuration = 1.second
