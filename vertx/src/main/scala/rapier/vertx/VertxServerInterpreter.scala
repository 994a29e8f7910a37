package rapier.vertx

import io.vertx.core.Handler
import io.vertx.core.http.HttpServerRequest
import rapier.server.{ServerEndpoint, ServerInterpreter}
import rapier.vertx.internal.{Connections, RequestHandler, VertxRequestBody}

import scala.concurrent.Future

/**
 * Rapier endpoints as one Vert.x request handler, for an `HttpServer` set up by hand. [[VertxServer]] is the
 * ready-made one.
 *
 * {{{
 * vertx.createHttpServer(options.httpServerOptions)
 *   .requestHandler(VertxServerInterpreter(options).requestHandler(endpoints))
 *   .listen()
 * }}}
 *
 * The interpreter (routing trie, compiled endpoints) is built once, here: Rapier routes with its own trie, behind a
 * single Vert.x handler.
 */
final class VertxServerInterpreter(options: VertxServerOptions = VertxServerOptions.default):

  /** A handler serving `endpoints` on every request it is given. */
  def requestHandler(endpoints: List[ServerEndpoint[Future]]): Handler[HttpServerRequest] =
    requestHandler(endpoints, Connections())

  private[vertx] def requestHandler(
      endpoints: List[ServerEndpoint[Future]],
      connections: Connections
  ): Handler[HttpServerRequest] =
    RequestHandler(ServerInterpreter(endpoints, VertxRequestBody, options.serverOptions), options, connections)
