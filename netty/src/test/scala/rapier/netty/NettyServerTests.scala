package rapier.netty

import rapier.server.ServerEndpoint
import rapier.testkit.*

import scala.concurrent.Future

/** The shared server test kit, on Netty. */
class NettyServerTests extends ServerTests:
  def server: TestServer = NettyTestServer

object NettyTestServer extends TestServer:
  def name = "netty"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    val options = NettyServerOptions()
      .withPort(0)
      .withEventLoopThreads(2)
      .withMaxBodySize(config.maxBodySize)
      .withMaxInitialLineLength(config.maxInitialLineLength)
      .withMaxHeaderSize(config.maxHeaderSize)
      .withIdleTimeout(config.idleTimeout)
      .withShutdownTimeout(config.shutdownTimeout)
      .withServerOptions(config.serverOptions)
    val binding = NettyServer(endpoints, options).start()
    new RunningServer:
      def port: Int = binding.port
      def stop(): Unit = binding.stop()
