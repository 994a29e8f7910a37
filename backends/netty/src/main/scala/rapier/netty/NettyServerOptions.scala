package rapier.netty

import rapier.server.{BackendOptions, BackendOptionsOf}

import java.util.concurrent.TimeUnit.SECONDS
import scala.concurrent.duration.*

/**
 * How a [[NettyServer]] listens and what it accepts: the options every backend shares (`backend`: host, port, limits,
 * timeouts, the interpreter's options; read and set through [[rapier.server.BackendOptionsOf]]'s `withPort`, `withMaxBodySize`, …),
 * and Netty's own beside them. Immutable: each `withX` returns a copy.
 *
 * @param backend
 *   the options every backend shares
 * @param headerReadTimeout
 *   a request line and headers must arrive within this time of their first bytes, or the request is answered 408
 *   and the connection closed (against clients that trickle their headers); `Duration.Inf` never
 * @param eventLoopThreads
 *   threads serving connections; 0 for one per available processor
 * @param maxPipelinedRequests
 *   requests of one connection in progress at once; reading pauses beyond it
 * @param transport
 *   the I/O transport
 */
final case class NettyServerOptions(
    backend: BackendOptions = BackendOptions.default,
    headerReadTimeout: Duration = FiniteDuration(10, SECONDS),
    eventLoopThreads: Int = 0,
    maxPipelinedRequests: Int = 16,
    transport: NettyTransport = NettyTransport.Auto
) extends BackendOptionsOf[NettyServerOptions]:
  require(rapier.isTimeout(headerReadTimeout), "headerReadTimeout must be positive (Duration.Inf for none)")
  require(maxPipelinedRequests > 0, "maxPipelinedRequests must be positive")
  require(eventLoopThreads >= 0, "eventLoopThreads must not be negative")

  def withBackend(b: BackendOptions): NettyServerOptions = copy(backend = b)
  def withHeaderReadTimeout(d: Duration): NettyServerOptions = copy(headerReadTimeout = d)
  def withEventLoopThreads(n: Int): NettyServerOptions = copy(eventLoopThreads = n)
  def withMaxPipelinedRequests(n: Int): NettyServerOptions = copy(maxPipelinedRequests = n)
  def withTransport(t: NettyTransport): NettyServerOptions = copy(transport = t)

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
