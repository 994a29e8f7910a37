package rapier.netty

import rapier.server.ServerOptions
import rapier.server.internal.BackendLimits

import scala.concurrent.duration.*

/**
 * How a [[NettyServer]] listens and what it accepts. Immutable: each `withX` returns a copy.
 *
 * @param host
 *   the address to bind; `0.0.0.0` for every interface
 * @param port
 *   the port to bind; 0 picks a free one, reported by the binding
 * @param maxBodySize
 *   the largest request body accepted; a larger one is answered 413 (before it is read, when its length is declared)
 * @param maxInitialLineLength
 *   the longest request line accepted; a longer one is answered 414
 * @param maxHeaderSize
 *   the largest header section accepted; a larger one is answered 431
 * @param headerReadTimeout
 *   a request line and headers must arrive within this time of their first bytes, or the request is answered 408
 *   and the connection closed (against clients that trickle their headers); `Duration.Inf` never
 * @param bodyReadTimeout
 *   a request body must arrive within this time of its headers, or the request is answered 408 and the connection
 *   closed; `Duration.Inf` never
 * @param idleTimeout
 *   a connection with no traffic and no request in progress for this long is closed; `Duration.Inf` never
 * @param shutdownTimeout
 *   how long `stop()` waits for requests in progress before closing their connections
 * @param eventLoopThreads
 *   threads serving connections; 0 for one per available processor
 * @param maxPipelinedRequests
 *   requests of one connection in progress at once; reading pauses beyond it
 * @param maxConnections
 *   connections open at once; one more is closed as soon as it is accepted, until another closes
 * @param transport
 *   the I/O transport
 * @param serverOptions
 *   how the interpreter treats requests (interceptors, handlers), whatever the backend
 */
final case class NettyServerOptions(
    host: String = "localhost",
    port: Int = 8080,
    maxBodySize: Long = 10L * 1024 * 1024,
    maxInitialLineLength: Int = 8192,
    maxHeaderSize: Int = 16384,
    headerReadTimeout: Duration = 10.seconds,
    bodyReadTimeout: Duration = 60.seconds,
    idleTimeout: Duration = 60.seconds,
    shutdownTimeout: FiniteDuration = 10.seconds,
    eventLoopThreads: Int = 0,
    maxPipelinedRequests: Int = 16,
    maxConnections: Int = 10000,
    transport: NettyTransport = NettyTransport.Auto,
    serverOptions: ServerOptions = ServerOptions.default
):
  BackendLimits.check(
    port,
    maxBodySize,
    maxInitialLineLength,
    maxHeaderSize,
    maxConnections,
    headerReadTimeout,
    bodyReadTimeout,
    idleTimeout
  )
  require(maxPipelinedRequests > 0, "maxPipelinedRequests must be positive")
  require(eventLoopThreads >= 0, "eventLoopThreads must not be negative")

  def withHost(h: String): NettyServerOptions = copy(host = h)
  def withPort(p: Int): NettyServerOptions = copy(port = p)
  def withMaxBodySize(bytes: Long): NettyServerOptions = copy(maxBodySize = bytes)
  def withMaxInitialLineLength(bytes: Int): NettyServerOptions = copy(maxInitialLineLength = bytes)
  def withMaxHeaderSize(bytes: Int): NettyServerOptions = copy(maxHeaderSize = bytes)
  def withHeaderReadTimeout(d: Duration): NettyServerOptions = copy(headerReadTimeout = d)
  def withBodyReadTimeout(d: Duration): NettyServerOptions = copy(bodyReadTimeout = d)
  def withIdleTimeout(d: Duration): NettyServerOptions = copy(idleTimeout = d)
  def withShutdownTimeout(d: FiniteDuration): NettyServerOptions = copy(shutdownTimeout = d)
  def withEventLoopThreads(n: Int): NettyServerOptions = copy(eventLoopThreads = n)
  def withMaxPipelinedRequests(n: Int): NettyServerOptions = copy(maxPipelinedRequests = n)
  def withMaxConnections(n: Int): NettyServerOptions = copy(maxConnections = n)
  def withTransport(t: NettyTransport): NettyServerOptions = copy(transport = t)
  def withServerOptions(o: ServerOptions): NettyServerOptions = copy(serverOptions = o)

  /** Changes the interpreter's options: `_.withoutRequestLog`. */
  def modifyServerOptions(f: ServerOptions => ServerOptions): NettyServerOptions =
    copy(serverOptions = f(serverOptions))

object NettyServerOptions:
  val default: NettyServerOptions = NettyServerOptions()

/** The I/O transport of a Netty server. */
enum NettyTransport:
  /** Native epoll where it is available (Linux), NIO elsewhere. */
  case Auto

  /** Native epoll; starting fails where it is not available. */
  case Epoll

  /** Java NIO. */
  case Nio
