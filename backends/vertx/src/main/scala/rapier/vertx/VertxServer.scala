package rapier.vertx

import io.vertx.core.http.HttpServer
import io.vertx.core.{Vertx, VertxOptions}
import org.slf4j.LoggerFactory
import rapier.server.spi.{Admission, Runner}
import rapier.server.{Http2, Monad, ServerBuilder, ServerEndpoint}
import rapier.vertx.internal.Connections

import java.net.InetSocketAddress
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
) extends ServerBuilder[Future, VertxServerOptions, VertxServer]:
  protected def copyWith(endpoints: List[ServerEndpoint[Future]], options: VertxServerOptions): VertxServer =
    copy(endpoints = endpoints, options = options)

  /** Runs on `v` rather than on a Vert.x of the server's own. */
  def withVertx(v: Vertx): VertxServer = copy(vertx = Some(v))

  type Started = VertxServer.Binding

  def start(): VertxServer.Binding = VertxServer.bind(endpoints, options, vertx)

object VertxServer:
  private val log = LoggerFactory.getLogger(classOf[VertxServer])

  /**
   * Compiles `endpoints`, listens on `vertx` (or a Vert.x of the server's own, closed with it), and returns once the
   * server accepts connections: how every flavour of the Vert.x server starts, the endpoints' logic in `F` run by
   * `runner` (`Future` here, an effect module's for its effect).
   */
  def bind[F[_]](endpoints: List[ServerEndpoint[F]], options: VertxServerOptions, vertx: Option[Vertx])(using
      Monad[F],
      Runner[F]
  ): Binding =
    // The idle timeout is Rapier's own on its server (IdleClose), not Vert.x's
    val idleNanos = rapier.timeoutNanos(options.idleTimeout)
    val connections =
      Connections(
        Admission(options.backend),
        options.maxConnections,
        options.http1Config,
        options.headerReadTimeout,
        accepts = true,
        idleNanos,
        options.http2.getOrElse(Http2())
      )
    // Compiled before anything starts: an endpoint that can't be served fails here, cleanly.
    val handler = VertxServerInterpreter(options).handler(endpoints, connections)
    val owned = vertx.isEmpty
    val v = vertx.getOrElse(Vertx.vertx(VertxOptions().setEventLoopPoolSize(Runtime.getRuntime.availableProcessors)))
    try
      val httpOptions = options.httpServerOptions.setIdleTimeout(0)
      // An h2 connection reaches the connection handler, and Rapier's watches, only with its client's first SETTINGS:
      // until then Vert.x's idle timeout holds it to the head's deadline (Connections takes it out)
      if options.http2.isDefined && options.tls.isDefined && options.headerReadTimeout.isFinite then
        httpOptions.setIdleTimeout(options.headerReadTimeout.toMillis.toInt).setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
      val wsLimit = handler.maxWebSocketMessageSize
      // Vert.x's limits are the server's: each WebSocket's own, if lower, is its channel's to keep (1009)
      if wsLimit > 0 then httpOptions.setMaxWebSocketFrameSize(wsLimit).setMaxWebSocketMessageSize(wsLimit)
      val server = v
        .createHttpServer(httpOptions)
        .connectionHandler(connections)
        .requestHandler(handler)
        .invalidRequestHandler(handler.invalid)
      server.listen().toCompletionStage.toCompletableFuture.get(30, TimeUnit.SECONDS)
      log.info(s"Serving ${endpoints.size} endpoint(s) on ${options.host}:${server.actualPort} (Vert.x)")
      Binding(server, v, owned, connections, options)
    catch
      case e: Throwable =>
        if owned then v.close()
        throw e match
          case ee: java.util.concurrent.ExecutionException if ee.getCause != null => ee.getCause
          case other => other

  /** A running Vert.x server. */
  final class Binding private[VertxServer] (
      server: HttpServer,
      vertx: Vertx,
      owned: Boolean,
      connections: Connections,
      options: VertxServerOptions
  ) extends rapier.server.Binding:
    val address: InetSocketAddress = InetSocketAddress(options.host, server.actualPort)

    def bodyBytesHeld: Long = connections.bodies.held

    protected def shutdown(): Unit =
      connections.draining = true
      connections.closeWebSockets()
      val timeout = options.shutdownTimeout
      server
        .shutdown(java.time.Duration.ofNanos(timeout.toNanos))
        .toCompletionStage
        .toCompletableFuture
        .get(timeout.toMillis + 5000, TimeUnit.MILLISECONDS)
      if owned then vertx.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
