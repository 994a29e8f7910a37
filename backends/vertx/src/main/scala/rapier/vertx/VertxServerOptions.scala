package rapier.vertx

import io.vertx.core.http.{ClientAuth, Http1ServerConfig, HttpServerOptions, HttpVersion}
import io.vertx.core.http.Http2Settings as VertxHttp2Settings
import io.vertx.core.net.{KeyCertOptions, TrustOptions}
import rapier.server.{BackendOptions, BackendOptionsOf, Http2, Tls}

import scala.jdk.CollectionConverters.*

import java.util.concurrent.TimeUnit
import scala.concurrent.duration.{Duration, FiniteDuration}

/**
 * How a [[VertxServer]] listens and what it accepts: the options every backend shares (host, port, limits, timeouts,
 * the interpreter's options; read and set through [[rapier.server.BackendOptionsOf]]'s `withPort`, `withMaxBodySize`, …), and the
 * deadline of a request's head. The HTTP limits are set as Vert.x's own options ([[httpServerOptions]]); the body
 * limit and read timeout are Rapier's. Immutable: each `withX` returns a copy.
 *
 * @param backend
 *   the options every backend shares
 * @param headerReadTimeout
 *   a request's head must arrive within this time of its first bytes, or it is answered 408 and the connection closed;
 *   `Duration.Inf` never. Kept by `VertxServer` (its decoder is Rapier's); an `HttpServer` set up otherwise has none
 */
final case class VertxServerOptions(
    backend: BackendOptions = BackendOptions.default,
    headerReadTimeout: Duration = FiniteDuration(10, TimeUnit.SECONDS)
) extends BackendOptionsOf[VertxServerOptions]:
  require(rapier.isTimeout(headerReadTimeout), "headerReadTimeout must be positive (Duration.Inf for none)")
  def withBackend(b: BackendOptions): VertxServerOptions = copy(backend = b)
  def withHeaderReadTimeout(d: Duration): VertxServerOptions = copy(headerReadTimeout = d)

  /** The configuration of the HTTP/1.1 request decoder [[httpServerOptions]] gives Vert.x. */
  private[vertx] def http1Config: Http1ServerConfig =
    val o = plainOptions
    Http1ServerConfig()
      .setMaxInitialLineLength(o.getMaxInitialLineLength)
      .setMaxHeaderSize(o.getMaxHeaderSize)
      .setMaxChunkSize(o.getMaxChunkSize)
      .setDecoderInitialBufferSize(o.getDecoderInitialBufferSize)

  /**
   * Vert.x's options for a server with these limits, without WebSocket compression: HTTP/1.1, and HTTP/2 by ALPN over
   * TLS when `http2` is set. h2c (HTTP/2 without TLS) stays off: with it, Vert.x would set a plain connection up only
   * after decoding its first request with its own HTTP/1.1 decoder, where Rapier's strict one must read every request
   * and the connection limit apply from the first bytes. A plain server asked for h2c is refused here, saying so.
   */
  def httpServerOptions: HttpServerOptions =
    http2.foreach { h =>
      require(
        tls.isDefined || !h.cleartext,
        "VertxServer serves HTTP/2 over TLS only (h2 by ALPN): Vert.x tells h2c from HTTP/1.1 only after decoding a " +
          "connection's first request with its own decoder, before Rapier's strict one takes over. Give it TLS " +
          "(withTls), or Http2(cleartext = false) for HTTP/1.1 only on this plain port"
      )
    }
    val o = plainOptions
    tls.foreach(VertxServerOptions.secure(o, _, headerReadTimeout, http2))
    o

  // The options but TLS's, which loads the key material: what the decoder's configuration reads back
  private def plainOptions: HttpServerOptions =
    val o = HttpServerOptions()
      .setHost(host)
      .setPort(port)
      .setMaxInitialLineLength(maxInitialLineLength)
      .setMaxHeaderSize(maxHeaderSize)
      .setMaxChunkSize(VertxServerOptions.MaxChunk)
      .setTcpNoDelay(true)
      .setCompressionSupported(false)
      .setHandle100ContinueAutomatically(false)
      .setHttp2ClearTextEnabled(false)
      // No WebSocket extensions, as on Netty: a frame with a reserved bit set is a protocol error (1002)
      .setPerMessageWebSocketCompressionSupported(false)
      .setPerFrameWebSocketCompressionSupported(false)
    if idleTimeout.isFinite then o.setIdleTimeout(idleTimeout.toMillis.toInt).setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
    else o.setIdleTimeout(0)

object VertxServerOptions:
  val default: VertxServerOptions = VertxServerOptions()

  /**
   * HTTPS on `o` from Rapier's settings: the key material loaded once, here, at start; the JDK's engine with the
   * settings' cipher suites and groups; ALPN offering `h2` first when `http2` is set, HTTP/1.1 always; the handshake
   * due within the head's deadline.
   */
  private def secure(o: HttpServerOptions, tls: Tls, headDeadline: Duration, http2: Option[Http2]): Unit =
    val keys = tls.keyManagers() match
      case null =>
        throw IllegalArgumentException(
          "Vert.x makes its own TLS context from key material: give it Tls.pem or Tls.keyStore rather than Tls.context"
        )
      case k => k
    o.setSsl(true)
      .setSslEngineOptions(rapier.vertx.internal.VertxEngines(tls))
      .setKeyCertOptions(KeyCertOptions.wrap(keys))
      .setEnabledSecureTransportProtocols(java.util.LinkedHashSet(tls.protocols.asJava))
      .setUseAlpn(true)
      // The versions served over TLS are those offered: HTTP/1.0 is one
      .setAlpnVersions(
        if http2.isDefined then java.util.List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1, HttpVersion.HTTP_1_0)
        else java.util.List.of(HttpVersion.HTTP_1_1, HttpVersion.HTTP_1_0)
      )
      .setClientAuth(tls.clientAuth match
        case Tls.ClientAuth.None => ClientAuth.NONE
        case Tls.ClientAuth.Optional => ClientAuth.REQUEST
        case Tls.ClientAuth.Required => ClientAuth.REQUIRED)
    tls.trustManagers().foreach(t => o.setTrustOptions(TrustOptions.wrap(t)))
    if headDeadline.isFinite then
      o.setSslHandshakeTimeout(headDeadline.toMillis).setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
    http2.foreach(limit(o, _))

  /**
   * Rapier's HTTP/2 limits as Vert.x's (Netty's codec under it): streams at once, a stream's window, the header list
   * as large as an HTTP/1.1 head may be, resets per window, and 16 small CONTINUATION frames as on Rapier's Netty
   * server. The connection's window is HTTP/2's first one, 65,535 bytes, as on Netty, where Vert.x would open 16 MiB:
   * what a connection's paused streams can make the server hold. Netty's own defaults hold against the other floods:
   * two empty DATA frames in a row, 10,000 control frames queued for a client that doesn't read.
   */
  private def limit(o: HttpServerOptions, h: Http2): Unit =
    o.setInitialSettings(
      VertxHttp2Settings()
        .setMaxConcurrentStreams(h.maxConcurrentStreams.toLong)
        .setInitialWindowSize(h.initialWindowSize)
        .setMaxHeaderListSize(o.getMaxHeaderSize.toLong)
        .setPushEnabled(false)
    ).setHttp2RstFloodMaxRstFramePerWindow(h.maxResetsPerWindow)
      .setHttp2RstFloodWindowDuration(h.resetWindowSeconds)
      .setHttp2RstFloodWindowDurationTimeUnit(TimeUnit.SECONDS)
      .setHttp2MaxSmallContinuationFrames(16)
      .setHttp2ConnectionWindowSize(65535)

  /**
   * The largest piece of a body Vert.x's decoder hands on at once: 64 KiB, what one of its reads takes at most, where
   * Vert.x's default cuts a body into pieces of 8 KiB. Each piece costs objects and steps whatever its size (Vert.x's
   * copy of it, the queue, the hand-over to a streamed body's reader), so a large body costs an eighth as many. The
   * price is memory: Vert.x queues up to 16 pieces of a paused request before it stops reading the connection, up to
   * 1 MiB with these (128 KiB with its default), on top of what a streamed body reads ahead of its reader.
   */
  val MaxChunk: Int = 64 * 1024
