package rapier.server

/**
 * HTTP/2 on a server Rapier starts (`BackendOptions.http2`): `h2` offered by ALPN on a TLS connection and, unless
 * `cleartext` is off, `h2c` on a plain one, by prior knowledge or by an `Upgrade` from HTTP/1.1. HTTP/1.1 is served
 * beside it on the same port. The limits bound what one connection can make the server hold: streams at once, the
 * window each stream's body may fill before its reader takes it, and the floods of frames known to exhaust servers
 * (resets, CONTINUATION, empty DATA, queued SETTINGS and PING acknowledgements). A header block must be whole within
 * the server's header read timeout, as an HTTP/1.1 head must; past it the connection ends with a GOAWAY.
 *
 * Deadlines count progress, not traffic. An answer whose client stops taking it (its window left shut, or opened a few
 * bytes at a time) is reset (CANCEL) once it has waited the server's idle timeout with less than 16 KiB of it sent; a
 * connection with no stream open is closed once nothing but PINGs, SETTINGS and window updates has passed for the idle
 * timeout. A stalled answer holds a chunk of its body (a file's: one read, and its descriptor) until then, and
 * `maxStalledStreams` bounds them for the whole server.
 *
 * {{{
 * NettyServerOptions.default.withHttp2(Http2())
 * }}}
 *
 * @param maxConcurrentStreams
 *   streams a client may have open at once (`SETTINGS_MAX_CONCURRENT_STREAMS`); one more is refused
 *   (`REFUSED_STREAM`)
 * @param initialWindowSize
 *   bytes of a request body the server takes on a stream before its reader has read them
 *   (`SETTINGS_INITIAL_WINDOW_SIZE`): a streamed body's back-pressure
 * @param cleartext
 *   whether plain (non-TLS) connections may speak HTTP/2 (`h2c`); a server that serves HTTP/2 over TLS only (Vert.x)
 *   refuses to start on a plain port with it on
 * @param maxResetsPerWindow
 *   streams a client may reset in `resetWindowSeconds` before the connection is closed (`ENHANCE_YOUR_CALM`): the
 *   rapid-reset attack (CVE-2023-44487) makes the server start work and cancels it at once, many times over
 * @param resetWindowSeconds
 *   the window `maxResetsPerWindow` is counted in; the resets a server makes (of streams a client's frames broke) count
 *   toward the same limit as a client's own
 * @param maxStalledStreams
 *   answers the whole server may hold for clients that stopped taking them (found waiting for window when its watch
 *   looks, at most a second apart); past it, each connection resets its longest stalled first
 */
final case class Http2(
    maxConcurrentStreams: Int = 100,
    initialWindowSize: Int = 65535,
    cleartext: Boolean = true,
    maxResetsPerWindow: Int = 200,
    resetWindowSeconds: Int = 30,
    maxStalledStreams: Int = 1000
):
  require(maxConcurrentStreams > 0, "maxConcurrentStreams must be positive")
  require(initialWindowSize > 0, "initialWindowSize must be positive (at most 2^31 - 1, RFC 9113 §6.5.2)")
  require(maxResetsPerWindow > 0 && resetWindowSeconds > 0, "the reset limit and its window must be positive")
  require(maxStalledStreams > 0, "maxStalledStreams must be positive")
