package rapier.netty

import rapier.server.ServerEndpoint
import rapier.testkit.*

import scala.concurrent.Future

/** The shared server test kit, on Netty with its native transport (epoll, here). */
class NettyServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = NettyTestServer(NettyTransport.Auto)
  override def h2specFailures: Option[Map[String, String]] = Some(NettyServerTests.h2spec)
  override def autobahnFailures: Option[Map[String, String]] = Some(Map.empty)

object NettyServerTests:
  val h2spec: Map[String, String] = Http2Tests.nettyCodecDecides ++ Http2Tests.sharedPort

/** The shared server test kit again, over HTTP/2 and TLS: its client speaks h2, its raw connections HTTP/1.1 over TLS. */
class NettyHttp2ServerTests extends KitTests:
  def server: TestServer = NettyTestServer(NettyTransport.Auto)
  override def protocol: KitProtocol = KitProtocol.Http2OverTls

/** The shared server test kit, on Netty with Java NIO, the transport used where epoll is not available. */
class NettyNioServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = NettyTestServer(NettyTransport.Nio)

final class NettyTestServer(transport: NettyTransport) extends TestServer:
  def name = s"netty (${transport.toString.toLowerCase})"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    val options = NettyServerOptions(
      config.backend,
      headerReadTimeout = config.headerReadTimeout,
      eventLoopThreads = 2,
      transport = transport
    )
    RunningServer(NettyServer(endpoints, options).start())
