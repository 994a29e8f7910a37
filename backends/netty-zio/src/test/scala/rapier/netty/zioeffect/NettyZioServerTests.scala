package rapier.netty.zioeffect

import rapier.netty.{NettyServerOptions, NettyTransport}
import rapier.server.ServerEndpoint
import rapier.testkit.*
import rapier.zioeffect.{ZioKit, ZioTests}
import zio.{RIO, ZEnvironment}

/** The shared server test kit on Netty with ZIO logic: every kit endpoint's logic runs as a `Task`. */
class NettyZioServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = NettyZioTestServer
  override def anyStyleTestedIn: Option[String] = Some("rapier.netty.NettyServerTests")

/** What ZIO logic and `ZStream` bodies must do on Netty. */
class NettyZioTests extends ZioTests:
  def server: ZioKit.ZioTestServer = NettyZioTestServer

object NettyZioTestServer extends ZioKit.ZioTestServer:
  def name = "netty.zio"

  def startNeeding[R](
      endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
      env: ZEnvironment[R],
      config: TestServerConfig
  ): RunningServer =
    val options = NettyServerOptions(
      config.backend,
      headerReadTimeout = config.headerReadTimeout,
      eventLoopThreads = 2,
      transport = NettyTransport.Auto
    )
    ZioKit.running(NettyZioServer.needing[R].addEndpoints(endpoints).withOptions(options).start(), env)
