package rapier.vertx

import io.vertx.core.http.{ClientAuth, Http1ServerConfig, HttpServerOptions, HttpVersion}
import io.vertx.core.net.{KeyCertOptions, TrustOptions}
import rapier.server.{BackendOptions, BackendOptionsOf, Tls}

import scala.jdk.CollectionConverters.*

import java.util.concurrent.TimeUnit
import scala.concurrent.duration.{Duration, FiniteDuration}

/**
 * How a [[VertxServer]] listens and what it accepts: the options every backend shares (host, port, limits, timeouts,
 * the interpreter's options; read and set through [[BackendOptionsOf]]'s `withPort`, `withMaxBodySize`, …), and the
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
   * Vert.x's options for an HTTP/1.1 server with these limits, without WebSocket compression. h2c (HTTP/2 without
   * TLS) is off: Rapier serves HTTP/1.1, and without it Vert.x sets a connection up on accept rather than after its
   * first bytes, so the connection limit and Rapier's strict decoder apply from the first request.
   */
  def httpServerOptions: HttpServerOptions =
    backend.requireHttp1Only("VertxServer")
    val o = plainOptions
    tls.foreach(VertxServerOptions.secure(o, _, headerReadTimeout))
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
   * HTTPS on `o` from Rapier's settings: the key material loaded once, here, at start; ALPN offering HTTP/1.1; the
   * handshake due within the head's deadline.
   */
  private def secure(o: HttpServerOptions, tls: Tls, headDeadline: Duration): Unit =
    val keys = tls.keyManagers() match
      case null =>
        throw IllegalArgumentException(
          "Vert.x makes its own TLS context from key material: give it Tls.pem or Tls.keyStore rather than Tls.context"
        )
      case k => k
    o.setSsl(true)
      .setKeyCertOptions(KeyCertOptions.wrap(keys))
      .setEnabledSecureTransportProtocols(java.util.LinkedHashSet(tls.protocols.asJava))
      .setUseAlpn(true)
      .setAlpnVersions(java.util.List.of(HttpVersion.HTTP_1_1))
      .setClientAuth(tls.clientAuth match
        case Tls.ClientAuth.None => ClientAuth.NONE
        case Tls.ClientAuth.Optional => ClientAuth.REQUEST
        case Tls.ClientAuth.Required => ClientAuth.REQUIRED)
    tls.trustManagers().foreach(t => o.setTrustOptions(TrustOptions.wrap(t)))
    if headDeadline.isFinite then
      o.setSslHandshakeTimeout(headDeadline.toMillis).setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)

  /**
   * The largest piece of a body Vert.x's decoder hands on at once: 64 KiB, what one of its reads takes at most, where
   * Vert.x's default cuts a body into pieces of 8 KiB. Each piece costs objects and steps whatever its size (Vert.x's
   * copy of it, the queue, the hand-over to a streamed body's reader), so a large body costs an eighth as many. The
   * price is memory: Vert.x queues up to 16 pieces of a paused request before it stops reading the connection, up to
   * 1 MiB with these (128 KiB with its default), on top of what a streamed body reads ahead of its reader.
   */
  val MaxChunk: Int = 64 * 1024
