package rapier.vertx.zioeffect

import rapier.server.ServerEndpoint
import rapier.testkit.*
import rapier.vertx.{VertxServerTests, VertxTestServer}
import rapier.zioeffect.{ZioKit, ZioTests}
import zio.{RIO, ZEnvironment}

/** The shared server test kit on Vert.x with ZIO logic: every kit endpoint's logic runs as a `Task`. */
class VertxZioServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = VertxZioTestServer

  override def unsupported: Map[String, String] = VertxServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = VertxServerTests.unsupportedMalformedRequests
  override def h2cUnserved: Option[String] = VertxServerTests.h2cUnserved
  override def http2RefusedOtherwise: Map[String, String] = VertxServerTests.http2RefusedOtherwise
  override def anyStyleTestedIn: Option[String] = Some("rapier.vertx.VertxServerTests")

/** What ZIO logic and `ZStream` bodies must do on Vert.x. */
class VertxZioTests extends ZioTests:
  def server: ZioKit.ZioTestServer = VertxZioTestServer

object VertxZioTestServer extends ZioKit.ZioTestServer:
  def name = "vertx.zio"

  def startNeeding[R](
      endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
      env: ZEnvironment[R],
      config: TestServerConfig
  ): RunningServer =
    val server = VertxZioServer.needing[R].addEndpoints(endpoints).withOptions(VertxTestServer.options(config))
    ZioKit.running(server.start(), env)
