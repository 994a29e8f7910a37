package rapier.vertx

import io.vertx.core.Handler
import io.vertx.core.http.HttpServerRequest
import io.vertx.ext.web.RoutingContext
import rapier.server.spi.{Admission, Runner}
import rapier.server.{Monad, ServerEndpoint, ServerInterpreter}
import rapier.vertx.internal.{Connections, RequestHandler}

/**
 * Rapier endpoints as one Vert.x handler: for an `HttpServer` set up by hand, or mounted on a vertx-web `Router`
 * beside an application's own routes. [[VertxServer]] is the ready-made server.
 *
 * {{{
 * vertx.createHttpServer(options.httpServerOptions)
 *   .requestHandler(VertxServerInterpreter(options).requestHandler(endpoints))
 *   .listen()
 *
 * router.route().handler(VertxServerInterpreter(options).routeHandler(endpoints))
 * }}}
 *
 * The interpreter (routing trie, compiled endpoints) is built once, here: Rapier routes with its own trie, behind a
 * single Vert.x handler. Of the options, a handler uses the body limit and read timeout and the server options;
 * host, port, connection limits and the other timeouts belong to whoever runs the `HttpServer` — and so do its
 * WebSocket limits: a WebSocket endpoint's messages longer than the server's `maxWebSocketFrameSize` (64 KiB unless
 * set) in one frame, or its `maxWebSocketMessageSize`, are refused by Vert.x before the endpoint's own limit applies.
 */
final class VertxServerInterpreter(options: VertxServerOptions = VertxServerOptions.default):

  /**
   * A handler serving `endpoints` on every request it is given; their logic in `F`, run by `runner`: `Future` logic
   * needs nothing more, an effect module brings the runner of its effect.
   */
  def requestHandler[F[_]](endpoints: List[ServerEndpoint[F]])(using Monad[F], Runner[F]): Handler[HttpServerRequest] =
    handler(endpoints, Connections(Admission(options.backend)))

  /**
   * A vertx-web route handler serving `endpoints` among an application's own routes. A request that one of the
   * endpoints takes (by method and path: the full request path, wherever the route is mounted) is served here, its
   * body read by Rapier; any other is passed on with `next()`, its body untouched, to the routes after this one (and
   * to vertx-web's own 404 or 405 when none takes it). A body that a vertx-web `BodyHandler` before this route
   * already read is used as it is, within the body limit. Needs vertx-web on the class path: the module itself
   * depends on vertx-core only.
   */
  def routeHandler[F[_]](endpoints: List[ServerEndpoint[F]])(using Monad[F], Runner[F]): Handler[RoutingContext] =
    val served = handler(endpoints, Connections(Admission(options.backend)))
    context => served.route(context)

  /** The endpoints compiled into one interpreter, behind the handler that serves both ways in. */
  private[vertx] def handler[F[_]](endpoints: List[ServerEndpoint[F]], connections: Connections)(using
      Monad[F],
      Runner[F]
  ): RequestHandler[F] =
    val interpreter = ServerInterpreter(endpoints, options.serverOptions, connections.bodies)
    RequestHandler(interpreter, summon[Runner[F]], options, connections)
