package rapier.vertx

import io.vertx.core.http.HttpServer
import io.vertx.core.{Vertx, VertxOptions}
import org.slf4j.LoggerFactory
import rapier.server.ServerEndpoint
import rapier.vertx.internal.Connections

import java.util.concurrent.TimeUnit
import scala.concurrent.Future

/**
 * A Rapier server on Vert.x, for endpoints whose logic returns `Future`s. It runs on the given `Vertx`, or on one of
 * its own (closed with the server) when none is given.
 *
 * {{{
 * val binding = VertxServer().withPort(8080).addEndpoints(List(hello)).start()
 * // ...
 * binding.stop()
 * }}}
 */
final case class VertxServer(
    endpoints: List[ServerEndpoint[Future]] = Nil,
    options: VertxServerOptions = VertxServerOptions.default,
    vertx: Option[Vertx] = None
):
  def addEndpoint(e: ServerEndpoint[Future]): VertxServer = copy(endpoints = endpoints :+ e)
  def addEndpoints(es: List[ServerEndpoint[Future]]): VertxServer = copy(endpoints = endpoints ++ es)
  def withOptions(o: VertxServerOptions): VertxServer = copy(options = o)
  def modifyOptions(f: VertxServerOptions => VertxServerOptions): VertxServer = copy(options = f(options))
  def withHost(host: String): VertxServer = modifyOptions(_.withHost(host))
  def withPort(port: Int): VertxServer = modifyOptions(_.withPort(port))

  /** Runs on `v` rather than on a Vert.x of the server's own. */
  def withVertx(v: Vertx): VertxServer = copy(vertx = Some(v))

  /**
   * Compiles the endpoints, binds, and returns once the server accepts connections.
   * @throws IllegalArgumentException
   *   if an endpoint can't be served (see the message)
   */
  def start(): VertxServer.Binding =
    val connections = Connections(options.maxConnections)
    // Compiled before anything starts: an endpoint that can't be served fails here, cleanly.
    val handler = VertxServerInterpreter(options).handler(endpoints, connections)
    val owned = vertx.isEmpty
    val v = vertx.getOrElse(Vertx.vertx(VertxOptions().setEventLoopPoolSize(Runtime.getRuntime.availableProcessors)))
    try
      val server = v.createHttpServer(options.httpServerOptions).connectionHandler(connections).requestHandler(handler)
      server.listen().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
      VertxServer.log.info(s"Serving ${endpoints.size} endpoint(s) on ${options.host}:${server.actualPort} (Vert.x)")
      VertxServer.Binding(server, v, owned, connections, options)
    catch
      case e: Throwable =>
        if owned then v.close()
        throw e match
          case ee: java.util.concurrent.ExecutionException if ee.getCause != null => ee.getCause
          case other => other

object VertxServer:
  private val log = LoggerFactory.getLogger(classOf[VertxServer])

  /** A running server. */
  final class Binding private[VertxServer] (
      server: HttpServer,
      vertx: Vertx,
      owned: Boolean,
      connections: Connections,
      options: VertxServerOptions
  ):
    /** The port the server listens on: the one asked for, or the one picked for port 0. */
    val port: Int = server.actualPort

    /**
     * Bytes of request bodies the server holds now, being read before their requests reach the endpoints: at most
     * `maxBodySize` per connection receiving a body. A gauge for monitoring memory under uploads.
     */
    def bodyBytesHeld: Long = connections.bodyBytes.sum

    /**
     * Stops gracefully and returns when done: stops accepting connections, lets requests in progress finish (their
     * responses say `Connection: close`), and after `shutdownTimeout` closes whatever is left. Calling it again does
     * nothing.
     */
    def stop(): Unit = synchronized {
      if !stopped then
        stopped = true
        connections.draining = true
        val timeout = options.shutdownTimeout
        server
          .shutdown(java.time.Duration.ofNanos(timeout.toNanos))
          .toCompletionStage
          .toCompletableFuture
          .get(timeout.toMillis + 5000, TimeUnit.MILLISECONDS)
        if owned then vertx.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
    }

    private var stopped = false
