package rapier.vertx

import io.vertx.core.Vertx
import io.vertx.ext.web.Router
import rapier.server.spi.Admission
import rapier.server.ServerEndpoint
import rapier.vertx.internal.Connections
import rapier.testkit.*

import java.util.concurrent.TimeUnit
import scala.concurrent.Future

/**
 * The shared server test kit, with Rapier mounted on a vertx-web `Router`: every request an endpoint takes is served by
 * the mount, every other one passes on to the route after it, which answers with Rapier's plain request handler (so
 * that the kit's 404s and 405s read as on the standalone server).
 */
class VertxRouterMountTests extends ServerTests, WebSocketTests:
  def server: TestServer = VertxRouterMountTestServer

  private def serverOwned = "the application's HttpServer, not the mount, owns connections and shutdown"
  private def routerFirst = "vertx-web's Router answers it before any route runs: 404 for a target that is not a path"

  override def h2cUnserved: Option[String] = VertxServerTests.h2cUnserved
  override def http2RefusedOtherwise: Map[String, String] =
    VertxServerTests.http2RefusedOtherwise + ("path-not-absolute" -> routerFirst)
  override def unsupported: Map[String, String] = VertxServerTests.unsupportedMounted ++ Map(
    "stopping lets requests in progress finish, closing their connections afterwards" -> serverOwned,
    "stopping under load: every request accepted gets its whole response, later ones 503 or a refusal" -> serverOwned,
    "stopping does not wait past the shutdown timeout" -> serverOwned,
    "a request target that is not a path is a 400" -> routerFirst,
    "OPTIONS * is answered for the server as a whole, with the methods of its endpoints" -> routerFirst,
    "connections over the limit are closed at once, and service resumes when one closes" -> serverOwned,
    "HTTP/2: a header block trickled a piece at a time ends its connection at the head deadline, no other" ->
      http2Owned,
    "HTTP/2: answers whose client opens no window are reset at the idle timeout, pings or not; files closed" ->
      http2Owned,
    "HTTP/2: a window trickled open a few bytes at a time is no progress: its answers are reset" -> http2Owned,
    "HTTP/2: past the server's bound on stalled answers, the longest stalled are reset at once" -> http2Owned,
    "HTTP/2: an h2c preface begun and left unfinished is held to the head's deadline" ->
      s"$serverOwned: its decoder reads the preface's first line as an HTTP/1.1 request line, with no deadline",
    "stopping the server closes its WebSockets with 1001" -> serverOwned,
    "a request in progress is not cut by the idle timeout" -> appIdle,
    "TLS: a client's renegotiation is refused: its connection is closed" ->
      s"$serverOwned: Rapier reads no TLS records in its pipeline, and Vert.x's JDK engine honours a renegotiation",
    "a malformed request's refusal carries a Date" ->
      "the application's HttpServer answers what its decoder refuses with its own invalid-request handler, undated",
    "a malformed request's refusal says what is wrong with it, in the same words on every server" ->
      ("the application's HttpServer answers what its decoder refuses with its own invalid-request handler: an " +
        "empty 400, 414 or 431")
  )

  private def http2Owned = s"$serverOwned: Rapier's HTTP/2 deadlines are not in its connections' pipelines"

  private def appIdle =
    "the application's HttpServer keeps Vert.x's idle timeout, which closes a connection without traffic also while " +
      "its request is being served: only VertxServer watches idleness itself"

  private def appDecodes =
    "the application's HttpServer decodes its connections: only VertxServer puts Rapier's strict decoder in place"

  private def hostByRouter =
    "vertx-web's Router answers a missing or invalid Host with 400 before any route runs, keeping the connection"

  override def unsupportedMalformedRequests: Map[String, String] =
    Map(
      "request line: a target that is not a path" -> routerFirst,
      "request line: the asterisk form on GET" -> routerFirst,
      "request line: the authority form on GET" -> routerFirst,
      "header: obs-fold" -> appDecodes,
      "request line: two spaces after the method" -> appDecodes,
      "request line: a tab as separator" -> appDecodes,
      "request line: leading whitespace" -> appDecodes,
      "header: an empty name" -> appDecodes,
      "request line: a lower-case protocol name" -> appDecodes,
      "request line: a version of two digits" -> appDecodes,
      "request line: another protocol" -> appDecodes,
      "request line: HTTP/1.2" -> appDecodes,
      "request line: HTTP/2.0" -> appDecodes,
      "request line: HTTP/0.9" -> appDecodes,
      "header: obs-fold hiding a Content-Length" -> appDecodes,
      "Host missing on HTTP/1.1" -> hostByRouter,
      "Host missing beside an absolute target" -> hostByRouter,
      "Host as a list" -> hostByRouter,
      "Host with a space" -> hostByRouter,
      "Host with a path" -> hostByRouter,
      "Host with user info" -> hostByRouter,
      "Host with a port that is not a number" -> hostByRouter,
      "Host with a port out of range" -> hostByRouter
    )

object VertxRouterMountTestServer extends TestServer:
  def name = "vertx-router"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    val options = VertxTestServer.options(config)
    val vertx = Vertx.vertx()
    // What routeHandler builds, kept at hand to answer what the mount passes on with the same interpreter.
    val connections = Connections(Admission(options.backend))
    val handler = VertxServerInterpreter(options).handler(endpoints, connections)
    val router = Router.router(vertx)
    router.route().handler(context => handler.route(context))
    router.route().handler(context => handler.handle(context.request))
    // The application sets the WebSocket limits its endpoints need, as the README says: Vert.x's are 64 KiB frames
    // otherwise
    val limit = handler.maxWebSocketMessageSize
    val httpOptions = options.httpServerOptions
    if limit > 0 then httpOptions.setMaxWebSocketFrameSize(limit).setMaxWebSocketMessageSize(limit)
    val server = vertx.createHttpServer(httpOptions).requestHandler(router)
    server.listen().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
    new RunningServer:
      def port: Int = server.actualPort
      def stop(): Unit = vertx.close().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
      def bodyBytesHeld: Long = connections.bodies.held
