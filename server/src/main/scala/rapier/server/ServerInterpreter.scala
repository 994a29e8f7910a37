package rapier.server

import rapier.model.Method
import rapier.server.interceptor.Interceptor
import rapier.server.internal.*
import rapier.server.spi.{BodyBudget, ServerRequest}
import org.slf4j.LoggerFactory

/**
 * The backend-neutral server: turns a [[rapier.server.spi.ServerRequest]] into a [[ServerResponse]] by way of the endpoints.
 *
 * Everything that does not depend on the request happens here, once: endpoints are compiled, the routing trie is
 * built, and each endpoint's chain of interceptors is composed. Serving a request is then:
 *   1. locate the path in the request target (no copy)
 *   2. walk the trie once, by path and method
 *   3. run the endpoint's chain, or the rejection chain (404, 405) when no endpoint matched
 *
 * @param endpoints
 *   in order of precedence: of two endpoints with the same method and path shape, the first wins (see
 *   [[ShadowedEndpoints]])
 * @param bodies
 *   the server's request-body budget (a backend's `Admission.budget`), which a body the interpreter reads itself (one
 *   decoded from its `Content-Encoding`) is taken from as it grows; by default none bounds them but their limits
 */
final class ServerInterpreter[F[_]](
    endpoints: List[ServerEndpoint[F]],
    options: ServerOptions = ServerOptions.default,
    bodies: BodyBudget = BodyBudget.Unbounded
)(using m: Monad[F])
    extends Handler[F]:
  private val files = TempFiles(options.maxUploadDisk.getOrElse(TempFiles.defaultLimit()))
  private val compiled: List[CompiledEndpoint[F]] =
    endpoints.map(CompiledEndpoint.compile(_, options.blockingExecutor, files))

  private val trie: PathTrie[EndpointChain[F]] =
    val builder = PathTrie.Builder[EndpointChain[F]]()
    val handlers = compiled.map { ce =>
      ce ->
        EndpointChain(
          Interceptor.compose(options.chain, ce.route, EndpointHandler(ce, options, files, bodies)),
          ce.input.streamsBody,
          ce.input.hasBody || ce.input.streamsBody
        )
    }
    val shadowed = handlers.flatMap { (ce, handler) =>
      builder.add(ce.pathParts, ce.method, handler).map { winner =>
        val first = handlers.collectFirst { case (c, h) if h eq winner => c.serverEndpoint.show }.getOrElse("?")
        s"${ce.serverEndpoint.show} can never be reached: $first comes first with the same method and path shape"
      }
    }
    if shadowed.nonEmpty then
      options.shadowedEndpoints match
        case ShadowedEndpoints.Fail =>
          throw IllegalArgumentException(shadowed.mkString("Unreachable endpoints:\n  ", "\n  ", ""))
        case ShadowedEndpoints.Warn => shadowed.foreach(ServerInterpreter.log.warn)
    builder.build()

  private val rejected: Handler[F] =
    Interceptor.compose(
      options.chain,
      Route.Rejected,
      request => m.unit(options.rejectHandler(request.rejection, options.problemRenderer))
    )

  // With CORS on, a preflight goes to the rejection chain, where CORS answers it, whatever endpoint its path has.
  private val preflights: EndpointChain[F] | Null =
    if options.cors.isEmpty then null else EndpointChain(rejected, streamsBody = false)

  // What `OPTIONS *` answers the server accepts: its endpoints' methods, and OPTIONS itself
  private val serverWide = Rejection.ServerWide(
    PathTrie.allowOrder(Method.OPTIONS.name :: compiled.flatMap(_.method)).map(Method.unsafe)
  )

  /** The endpoints served, in order. */
  val serverEndpoints: List[ServerEndpoint[F]] = endpoints

  /** Whether some endpoint is a WebSocket. */
  val servesWebSockets: Boolean = compiled.exists(_.output.webSocket != null)

  /** The largest message a WebSocket endpoint takes (0 without one): for a backend whose limit is the server's. */
  val maxWebSocketMessageSize: Int =
    compiled.foldLeft(0) { (largest, c) =>
      val ws = c.output.webSocket
      if ws == null then largest else Math.max(largest, ws.nn.maxMessageSize)
    }

  /**
   * This interpreter, for a backend that can't upgrade a connection to a WebSocket yet.
   * @throws IllegalArgumentException
   *   if some endpoint is a WebSocket
   */
  def withoutWebSockets(backend: String): ServerInterpreter[F] =
    if servesWebSockets then
      val names = compiled.filter(_.output.webSocket != null).map(_.serverEndpoint.show)
      throw IllegalArgumentException(
        s"WebSocket endpoints are not served on $backend yet (they are on Netty): ${names.mkString(", ")}"
      )
    this

  // 1-2. locate the path in the request target, walk the trie by path and method; 3. run the chain found
  def apply(request: ServerRequest): F[ServerResponse] = serve(request, routeOrNull(request))

  /**
   * Serves a request [[routeOrNull]] has routed: runs the chain it found, or, when it found none, the rejection chain
   * (404, 405, 400 for a target that is no path, `OPTIONS *`'s answer for the server as a whole).
   */
  def serve(request: ServerRequest, chain: EndpointChain[F] | Null): F[ServerResponse] =
    if chain != null then chain.nn(request)
    else
      val target = request.uri
      request.rejection =
        if target == "*" && request.method.name == Method.OPTIONS.name then serverWide
        else if RequestTarget.pathStart(target) < 0 then Rejection.InvalidTarget
        else
          val allowed = trie.allowedMethods(target, request.pathStart, request.pathEnd)
          if allowed.isEmpty then Rejection.NotFound else Rejection.MethodNotAllowed(allowed.map(Method.unsafe))
      rejected(request)

  /**
   * The chain of the endpoint that takes the request's method and path, with the path located and its captures
   * recorded in the request; null when no endpoint does. Backends route each request as its head arrives, then
   * [[serve]] it with what this found: the route tells whether the endpoint streams its body (see
   * `spi.Admission`), and a backend mounted among other routes passes on what this declines, its body unread.
   */
  def routeOrNull(request: ServerRequest): EndpointChain[F] | Null =
    val target = request.uri
    val start = RequestTarget.pathStart(target)
    if start < 0 then
      request.begin(0, 0)
      null
    else
      val end = RequestTarget.pathEnd(target, start)
      request.begin(start, end)
      val found = trie.find(target, start, end, request.method.name, request)
      if preflights == null || !cors.CorsInterceptor.isPreflight(request) then found
      else
        val allowed = trie.allowedMethods(target, start, end)
        if allowed.isEmpty then found
        else
          request.rejection = Rejection.MethodNotAllowed(allowed.map(Method.unsafe))
          preflights

object ServerInterpreter:
  private val log = LoggerFactory.getLogger(classOf[ServerInterpreter[?]])
