package rapier.server

import java.util.concurrent.TimeUnit.SECONDS
import scala.concurrent.duration.*

/**
 * What every backend's options hold alike: where to listen, how large and how slow a request may be, how long
 * stopping may take, and how the interpreter treats requests. A backend's options hold one of these beside their own
 * (`NettyServerOptions`, `VertxServerOptions`), and read and change it through [[BackendOptionsOf]]'s accessors and
 * `withX` setters. Immutable; a limit out of range fails at construction, naming it.
 *
 * @param host
 *   the address to bind; `0.0.0.0` for every interface
 * @param port
 *   the port to bind; 0 picks a free one, reported by the binding
 * @param maxBodySize
 *   the largest request body accepted whole (bytes, text, forms, multipart); a larger one is answered 413 (before it
 *   is read, when its length is declared)
 * @param maxBodyMemory
 *   the request-body bytes the whole server holds in memory at once, for every connection: bodies read whole (one
 *   decoded from its `Content-Encoding` counted as it grows), and the chunks of streamed ones waiting for their
 *   readers. A body that would pass it is answered 503 with `Retry-After` rather than read. None: a quarter of the
 *   heap, and at least `maxBodySize`
 * @param maxStreamedBodySize
 *   the largest request body an endpoint that streams it accepts (an upload to a file or to multipart's part files
 *   included), 1 GiB unless set: the logic reads it as it arrives, so it is never held whole, but a stream without end
 *   would take the disk or the logic's time. Past it, the request is answered 413 if its response has not started, or
 *   its connection closed if it has; a declared length past it is answered 413 before the body is read
 * @param maxInitialLineLength
 *   the longest request line accepted; a longer one is answered 414
 * @param maxHeaderSize
 *   the largest header section accepted; a larger one is answered 431
 * @param bodyReadTimeout
 *   a request body must arrive within this time of its headers, or the request is answered 408 and the connection
 *   closed; `Duration.Inf` never. A streamed body is timed only while its reader waits for the client: each chunk it
 *   asks for must arrive within this time
 * @param idleTimeout
 *   a connection with no traffic and no request in progress for this long is closed; `Duration.Inf` never
 * @param shutdownTimeout
 *   how long `stop()` waits for requests in progress before closing their connections
 * @param maxConnections
 *   connections open at once; one more is closed as soon as it is accepted, until another closes
 * @param tls
 *   HTTPS: the server's certificate and key, TLS versions and client certificates (see [[Tls]]); None for plain HTTP
 * @param http2
 *   HTTP/2 beside HTTP/1.1, with its limits (see [[Http2]]); None for HTTP/1.1 only
 * @param serverOptions
 *   how the interpreter treats requests (interceptors, handlers)
 */
final case class BackendOptions(
    host: String = "localhost",
    port: Int = 8080,
    maxBodySize: Long = 10L * 1024 * 1024,
    maxInitialLineLength: Int = 8192,
    maxHeaderSize: Int = 16384,
    maxStreamedBodySize: Long = 1L << 30,
    maxBodyMemory: Option[Long] = None,
    bodyReadTimeout: Duration = FiniteDuration(60, SECONDS),
    idleTimeout: Duration = FiniteDuration(60, SECONDS),
    shutdownTimeout: FiniteDuration = FiniteDuration(10, SECONDS),
    maxConnections: Int = 10000,
    tls: Option[Tls] = None,
    http2: Option[Http2] = None,
    serverOptions: ServerOptions = ServerOptions.default
):
  require(port >= 0 && port <= 65535, s"a port is between 0 and 65535, not $port")
  require(maxBodySize >= 0 && maxBodySize <= Int.MaxValue - 8, "maxBodySize must fit in a byte array")
  require(maxStreamedBodySize >= 0, "maxStreamedBodySize must not be negative")
  require(
    maxBodyMemory.forall(_ >= maxBodySize),
    s"maxBodyMemory (${maxBodyMemory.getOrElse(0L)}) must be at least maxBodySize ($maxBodySize): a body of the " +
      "largest size could never be read"
  )
  require(maxInitialLineLength > 0 && maxHeaderSize > 0, "line and header limits must be positive")
  require(maxConnections > 0, "maxConnections must be positive")
  require(
    rapier.isTimeout(bodyReadTimeout) && rapier.isTimeout(idleTimeout) && shutdownTimeout.length >= 0,
    "timeouts must be positive (Duration.Inf for none)"
  )

object BackendOptions:
  val default: BackendOptions = BackendOptions()

/**
 * The accessors and `withX` setters of the [[BackendOptions]] a backend's options hold, written once for every
 * backend.
 *
 * @tparam Self
 *   the backend's options type, which each setter returns
 */
trait BackendOptionsOf[Self]:
  /** The options every backend shares. */
  def backend: BackendOptions

  /** A copy with `b` as the shared options. */
  def withBackend(b: BackendOptions): Self

  final def modifyBackend(f: BackendOptions => BackendOptions): Self = withBackend(f(backend))

  final def host: String = backend.host
  final def port: Int = backend.port
  final def maxBodySize: Long = backend.maxBodySize
  final def maxStreamedBodySize: Long = backend.maxStreamedBodySize
  final def maxBodyMemory: Option[Long] = backend.maxBodyMemory
  final def maxInitialLineLength: Int = backend.maxInitialLineLength
  final def maxHeaderSize: Int = backend.maxHeaderSize
  final def bodyReadTimeout: Duration = backend.bodyReadTimeout
  final def idleTimeout: Duration = backend.idleTimeout
  final def shutdownTimeout: FiniteDuration = backend.shutdownTimeout
  final def maxConnections: Int = backend.maxConnections
  final def tls: Option[Tls] = backend.tls
  final def http2: Option[Http2] = backend.http2
  final def serverOptions: ServerOptions = backend.serverOptions

  final def withHost(h: String): Self = modifyBackend(_.copy(host = h))
  final def withPort(p: Int): Self = modifyBackend(_.copy(port = p))
  final def withMaxBodySize(bytes: Long): Self = modifyBackend(_.copy(maxBodySize = bytes))
  final def withMaxStreamedBodySize(bytes: Long): Self = modifyBackend(_.copy(maxStreamedBodySize = bytes))
  final def withMaxBodyMemory(bytes: Long): Self = modifyBackend(_.copy(maxBodyMemory = Some(bytes)))
  final def withMaxInitialLineLength(bytes: Int): Self = modifyBackend(_.copy(maxInitialLineLength = bytes))
  final def withMaxHeaderSize(bytes: Int): Self = modifyBackend(_.copy(maxHeaderSize = bytes))
  final def withBodyReadTimeout(d: Duration): Self = modifyBackend(_.copy(bodyReadTimeout = d))
  final def withIdleTimeout(d: Duration): Self = modifyBackend(_.copy(idleTimeout = d))
  final def withShutdownTimeout(d: FiniteDuration): Self = modifyBackend(_.copy(shutdownTimeout = d))
  final def withMaxConnections(n: Int): Self = modifyBackend(_.copy(maxConnections = n))
  final def withTls(t: Tls): Self = modifyBackend(_.copy(tls = Some(t)))
  final def withHttp2(h: Http2 = Http2()): Self = modifyBackend(_.copy(http2 = Some(h)))
  final def withoutHttp2: Self = modifyBackend(_.copy(http2 = None))
  final def withServerOptions(o: ServerOptions): Self = modifyBackend(_.copy(serverOptions = o))

  /** Changes the interpreter's options: `_.withoutRequestLog`. */
  final def modifyServerOptions(f: ServerOptions => ServerOptions): Self =
    modifyBackend(b => b.copy(serverOptions = f(b.serverOptions)))
