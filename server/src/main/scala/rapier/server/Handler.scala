package rapier.server

import rapier.server.spi.ServerRequest

/** Handles one request: what interceptors wrap. */
trait Handler[F[_]]:
  def apply(request: ServerRequest): F[ServerResponse]

/**
 * What a chain of handlers serves: one endpoint, or every request that no endpoint takes. Interceptors see it when
 * the chain is built, once per route, so whatever they derive from it costs nothing per request.
 */
sealed trait Route

object Route:
  /** An endpoint; `label` is its method and path template, `GET /books/{id}`. */
  final case class ToEndpoint(endpoint: rapier.Endpoint[?, ?, ?, ?], label: String) extends Route

  /** Requests for which routing found no endpoint. */
  case object Rejected extends Route

/** Why no endpoint took a request. */
enum Rejection:
  /** No endpoint has this path. */
  case NotFound

  /** Endpoints have this path, but not for this method; `allowed` lists the methods they accept. */
  case MethodNotAllowed(allowed: List[rapier.model.Method])

  /** The request target is neither a path nor an absolute URI. */
  case InvalidTarget

  /**
   * `OPTIONS *`: a question about the server as a whole (RFC 9110 §9.3.7), which no endpoint takes; `allowed` lists the
   * methods its endpoints accept, and OPTIONS.
   */
  case ServerWide(allowed: List[rapier.model.Method])
