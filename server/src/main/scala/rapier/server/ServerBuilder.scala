package rapier.server

/**
 * The builder every backend's server is: its endpoints and options, added to and changed by copies, then started.
 * A backend implements [[copyWith]] and [[start]].
 *
 * {{{
 * val binding = NettyServer().withPort(8080).addEndpoints(endpoints).start()
 * }}}
 *
 * @tparam F
 *   the effect the endpoints' logic returns
 * @tparam O
 *   the backend's options
 * @tparam Self
 *   the backend's server type, which each setter returns
 */
trait ServerBuilder[F[_], O <: BackendOptionsOf[O], Self]:
  def endpoints: List[ServerEndpoint[F]]
  def options: O

  /** A copy with these endpoints and options. */
  protected def copyWith(endpoints: List[ServerEndpoint[F]], options: O): Self

  /**
   * What `start` gives: the running [[rapier.server.Binding]] for `Future` logic and direct style; for an effect module's server,
   * the server as a resource of that effect (a cats-effect `Resource[F, Binding]`), bound when it is used.
   */
  type Started

  /**
   * Compiles the endpoints, binds, and returns once the server accepts connections (or, for an effect's server, the
   * resource that does so when used).
   * @throws IllegalArgumentException
   *   if an endpoint can't be served (see the message)
   * @throws java.net.BindException
   *   if the address can't be bound
   */
  def start(): Started

  final def addEndpoint(e: ServerEndpoint[F]): Self = copyWith(endpoints :+ e, options)
  final def addEndpoints(es: List[ServerEndpoint[F]]): Self = copyWith(endpoints ++ es, options)
  final def withOptions(o: O): Self = copyWith(endpoints, o)
  final def modifyOptions(f: O => O): Self = copyWith(endpoints, f(options))
  final def withHost(host: String): Self = modifyOptions(_.withHost(host))
  final def withPort(port: Int): Self = modifyOptions(_.withPort(port))

  /** HTTPS with `tls`'s certificate and key (see [[Tls]]). */
  final def withTls(tls: Tls): Self = modifyOptions(_.withTls(tls))

  /** HTTP/2 beside HTTP/1.1, with `http2`'s limits (see [[Http2]]); a server that speaks HTTP/1.1 only refuses it. */
  final def withHttp2(http2: Http2 = Http2()): Self = modifyOptions(_.withHttp2(http2))

  /** Cross-origin requests from browsers allowed as `cors` says (see [[ServerOptions.withCors]]). */
  final def withCors(cors: rapier.server.cors.Cors): Self =
    modifyOptions(o => o.withServerOptions(o.serverOptions.withCors(cors)))

  /** Answers compressed as requests ask (see [[ServerOptions.withCompression]]). */
  final def withCompression(
      compression: rapier.server.compression.Compression = rapier.server.compression.Compression.default
  ): Self = modifyOptions(o => o.withServerOptions(o.serverOptions.withCompression(compression)))

  /** Adds an interceptor around every route (see [[ServerOptions.withInterceptor]]). */
  final def withInterceptor(i: rapier.server.interceptor.Interceptor): Self =
    modifyOptions(o => o.withServerOptions(o.serverOptions.withInterceptor(i)))
