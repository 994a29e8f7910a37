package rapier.server

import rapier.server.interceptor.*

/**
 * How the interpreter treats requests, whatever the backend: handlers for failures and rejections, the request
 * log, extra interceptors, what to do about endpoints that can never be reached, where blocking work runs, how much
 * disk uploads may take, and cross-origin requests from browsers.
 *
 * @param maxUploadDisk
 *   the bytes the temporary files of uploads (`fileBody`, multipart's file parts) may hold at once, all requests
 *   together; an upload that would pass it is answered 503 with `Retry-After`, its files deleted. None: half the space
 *   left in the temporary directory when the server starts
 */
final case class ServerOptions(
    decodeFailureHandler: DecodeFailureHandler = DecodeFailureHandler.default,
    rejectHandler: RejectHandler = RejectHandler.default,
    exceptionHandler: ExceptionHandler = ExceptionHandler.default,
    requestLog: Option[RequestLog] = Some(RequestLog.default),
    interceptors: List[Interceptor] = Nil,
    shadowedEndpoints: ShadowedEndpoints = ShadowedEndpoints.Fail,
    problemRenderer: ProblemRenderer = ProblemRenderer.json,
    blockingExecutor: java.util.concurrent.Executor = BlockingExecutor.default,
    maxUploadDisk: Option[Long] = None,
    cors: Option[rapier.server.cors.Cors] = None,
    compression: Option[rapier.server.compression.Compression] = None
):
  require(maxUploadDisk.forall(_ > 0), "maxUploadDisk must be positive")

  def withDecodeFailureHandler(h: DecodeFailureHandler): ServerOptions = copy(decodeFailureHandler = h)
  def withRejectHandler(h: RejectHandler): ServerOptions = copy(rejectHandler = h)
  def withExceptionHandler(h: ExceptionHandler): ServerOptions = copy(exceptionHandler = h)
  def withRequestLog(log: RequestLog): ServerOptions = copy(requestLog = Some(log))
  def withoutRequestLog: ServerOptions = copy(requestLog = None)

  /** Adds an interceptor, inside those already added (and inside the request log and exception handler). */
  def withInterceptor(i: Interceptor): ServerOptions = copy(interceptors = interceptors :+ i)
  def withShadowedEndpoints(policy: ShadowedEndpoints): ServerOptions = copy(shadowedEndpoints = policy)

  /**
   * How every error response Rapier writes by itself is rendered (decode failures, 404, 405, 413, 500): RFC 9457
   * `application/problem+json` by default, [[ProblemRenderer.plainText]] or your own.
   */
  def withProblemRenderer(r: ProblemRenderer): ServerOptions = copy(problemRenderer = r)

  /**
   * Where what may block runs, such as reading a response body from an `InputStream`: [[BlockingExecutor.default]], or
   * your own (a virtual-thread-per-task executor on JDK 21+).
   */
  def withBlockingExecutor(e: java.util.concurrent.Executor): ServerOptions = copy(blockingExecutor = e)

  /** At most `bytes` of uploads' temporary files on disk at once (see [[maxUploadDisk]]). */
  def withMaxUploadDisk(bytes: Long): ServerOptions = copy(maxUploadDisk = Some(bytes))

  /**
   * Cross-origin requests from browsers ([[rapier.server.cors.Cors]]): preflights answered by the server, the answers'
   * CORS headers set, errors included.
   */
  def withCors(c: rapier.server.cors.Cors): ServerOptions = copy(cors = Some(c))

  /** Answers compressed as requests ask ([[rapier.server.compression.Compression]]). */
  def withCompression(c: rapier.server.compression.Compression = rapier.server.compression.Compression.default)
      : ServerOptions = copy(compression = Some(c))

  /**
   * The whole chain around each route, outermost first: the request log sees the final status, 500s included, and
   * CORS headers go on every answer, 500s included.
   */
  private[server] def chain: List[Interceptor] =
    requestLog.toList ++ cors.map(rapier.server.cors.CorsInterceptor(_, problemRenderer)).toList ++
      compression.map(rapier.server.compression.CompressionInterceptor(_, problemRenderer)).toList ++
      (ExceptionInterceptor(exceptionHandler, problemRenderer) :: interceptors)

object ServerOptions:
  val default: ServerOptions = ServerOptions()

/** What to do when an endpoint can never be reached because an earlier one has the same method and path shape. */
enum ShadowedEndpoints:
  /** Refuse to start, naming both endpoints. */
  case Fail

  /** Start, logging a warning that names both. */
  case Warn
