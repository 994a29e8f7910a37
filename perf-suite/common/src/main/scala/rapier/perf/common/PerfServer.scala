package rapier.perf.common

/**
 * A server of the suite, started by [[ServerMain]] in a JVM of its own. Implementations have a public no-argument
 * constructor: the launcher instantiates them by class name.
 */
trait PerfServer:
  /** Starts serving and returns the port bound (the one asked for, or a free one for 0). */
  def start(config: ServerConfig): Int

  /** Stops serving. */
  def stop(): Unit

  /**
   * How many route sets, built apart and tried one after another, serve the endpoints once started: 1 when a request
   * is routed once among all of them (a hash map, a trie, one router, one library route). A server that registers
   * its routes in pieces its library then tries in turn would say so here, and fail the suite's check.
   */
  def routeSets: Int

/**
 * How to start a server of the suite.
 *
 * @param routes
 *   1, or 128 for the Multi variants (`/path0` to `/path127`)
 * @param requestLog
 *   the library's request log on, with its logger configured to write nothing (the seeds' "(i)" variant)
 * @param threads
 *   event loop threads: every server gets the same number, one per CPU it is pinned to
 * @param compression
 *   answers gzip- or deflate-encoded as `Accept-Encoding` asks, from 1 KiB, as the server's own compression does it
 * @param tls
 *   serves HTTPS only, with this key, TLS 1.3 and 1.2, ALPN offering HTTP/1.1, as the server's own TLS does it
 * @param http2
 *   serves HTTP/2 beside HTTP/1.1 on plain connections (h2c: prior knowledge and Upgrade), as the server's own does it
 */
final case class ServerConfig(
    port: Int,
    routes: Int,
    requestLog: Boolean,
    threads: Int,
    compression: Boolean = false,
    tls: Option[TlsFiles] = None,
    http2: Boolean = false
)
