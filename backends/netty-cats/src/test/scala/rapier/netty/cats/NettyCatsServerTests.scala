package rapier.netty.cats

import cats.effect.IO
import rapier.cats.{CatsKit, CatsTests}
import rapier.netty.{NettyServerOptions, NettyTransport}
import rapier.server.ServerEndpoint
import rapier.testkit.*

/** The shared server test kit on Netty with `IO` logic: every kit endpoint's logic runs as `IO`. */
class NettyCatsServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = NettyCatsTestServer
  override def anyStyleTestedIn: Option[String] = Some("rapier.netty.NettyServerTests")

/** What `IO` logic and fs2 bodies must do on Netty. */
class NettyCatsTests extends CatsTests:
  def server: CatsKit.CatsTestServer = NettyCatsTestServer

object NettyCatsTestServer extends CatsKit.CatsTestServer:
  def name = "netty.cats"

  def startIO(endpoints: List[ServerEndpoint[IO]], config: TestServerConfig): RunningServer =
    val options = NettyServerOptions(
      config.backend,
      headerReadTimeout = config.headerReadTimeout,
      eventLoopThreads = 2,
      transport = NettyTransport.Auto
    )
    CatsKit.running(NettyCatsServer[IO](endpoints, options).start())
