package rapier.vertx

import io.vertx.core.http.HttpServerOptions
import rapier.server.ServerOptions
import rapier.server.internal.BackendLimits

import java.util.concurrent.TimeUnit
import scala.concurrent.duration.*

/**
 * How a [[VertxServer]] listens and what it accepts. Immutable: each `withX` returns a copy. The HTTP limits are
 * Vert.x's own options, set from these; the body limit is Rapier's.
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
 * @param bodyReadTimeout
 *   a request body must arrive within this time of its headers, or the request is answered 408 and the connection
 *   closed; `Duration.Inf` never
 * @param idleTimeout
 *   a connection with no traffic for this long is closed; `Duration.Inf` never
 * @param shutdownTimeout
 *   how long `stop()` waits for requests in progress before closing their connections
 * @param maxConnections
 *   connections open at once; one more is closed as soon as it is accepted, until another closes
 * @param serverOptions
 *   how the interpreter treats requests (interceptors, handlers), whatever the backend
 */
final case class VertxServerOptions(
    host: String = "localhost",
    port: Int = 8080,
    maxBodySize: Long = 10L * 1024 * 1024,
    maxInitialLineLength: Int = 8192,
    maxHeaderSize: Int = 16384,
    bodyReadTimeout: Duration = 60.seconds,
    idleTimeout: Duration = 60.seconds,
    shutdownTimeout: FiniteDuration = 10.seconds,
    maxConnections: Int = 10000,
    serverOptions: ServerOptions = ServerOptions.default
):
  BackendLimits.check(
    port,
    maxBodySize,
    maxInitialLineLength,
    maxHeaderSize,
    maxConnections,
    bodyReadTimeout,
    idleTimeout
  )

  def withHost(h: String): VertxServerOptions = copy(host = h)
  def withPort(p: Int): VertxServerOptions = copy(port = p)
  def withMaxBodySize(bytes: Long): VertxServerOptions = copy(maxBodySize = bytes)
  def withMaxInitialLineLength(bytes: Int): VertxServerOptions = copy(maxInitialLineLength = bytes)
  def withMaxHeaderSize(bytes: Int): VertxServerOptions = copy(maxHeaderSize = bytes)
  def withBodyReadTimeout(d: Duration): VertxServerOptions = copy(bodyReadTimeout = d)
  def withIdleTimeout(d: Duration): VertxServerOptions = copy(idleTimeout = d)
  def withShutdownTimeout(d: FiniteDuration): VertxServerOptions = copy(shutdownTimeout = d)
  def withMaxConnections(n: Int): VertxServerOptions = copy(maxConnections = n)
  def withServerOptions(o: ServerOptions): VertxServerOptions = copy(serverOptions = o)

  /** Changes the interpreter's options: `_.withoutRequestLog`. */
  def modifyServerOptions(f: ServerOptions => ServerOptions): VertxServerOptions =
    copy(serverOptions = f(serverOptions))

  /** Vert.x's options for an HTTP/1.1 server with these limits. */
  def httpServerOptions: HttpServerOptions =
    val o = HttpServerOptions()
      .setHost(host)
      .setPort(port)
      .setMaxInitialLineLength(maxInitialLineLength)
      .setMaxHeaderSize(maxHeaderSize)
      .setTcpNoDelay(true)
      .setCompressionSupported(false)
      .setHandle100ContinueAutomatically(false)
    if idleTimeout.isFinite then o.setIdleTimeout(idleTimeout.toMillis.toInt).setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
    else o.setIdleTimeout(0)

object VertxServerOptions:
  val default: VertxServerOptions = VertxServerOptions()
