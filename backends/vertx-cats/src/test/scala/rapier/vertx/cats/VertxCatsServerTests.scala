package rapier.vertx.cats

import cats.effect.IO
import rapier.cats.{CatsKit, CatsTests}
import rapier.server.ServerEndpoint
import rapier.testkit.*
import rapier.vertx.{VertxServerTests, VertxTestServer}

/** The shared server test kit on Vert.x with `IO` logic: every kit endpoint's logic runs as `IO`. */
class VertxCatsServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = VertxCatsTestServer

  override def unsupported: Map[String, String] = VertxServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = VertxServerTests.unsupportedMalformedRequests
  override def h2cUnserved: Option[String] = VertxServerTests.h2cUnserved
  override def http2RefusedOtherwise: Map[String, String] = VertxServerTests.http2RefusedOtherwise
  override def anyStyleTestedIn: Option[String] = Some("rapier.vertx.VertxServerTests")

/** What `IO` logic and fs2 bodies must do on Vert.x. */
class VertxCatsTests extends CatsTests:
  def server: CatsKit.CatsTestServer = VertxCatsTestServer

object VertxCatsTestServer extends CatsKit.CatsTestServer:
  def name = "vertx.cats"

  def startIO(endpoints: List[ServerEndpoint[IO]], config: TestServerConfig): RunningServer =
    CatsKit.running(VertxCatsServer[IO](endpoints, VertxTestServer.options(config)).start())
