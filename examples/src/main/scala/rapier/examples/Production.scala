package rapier.examples

import io.opentelemetry.api.OpenTelemetry
import rapier.metrics.opentelemetry.OpenTelemetryMetrics
import rapier.metrics.prometheus.PrometheusMetrics
import rapier.netty.NettyServer
import rapier.server.{Http2, Tls}
import rapier.server.compression.Compression
import rapier.server.cors.Cors
import rapier.server.files.StaticFiles
import rapier.tracing.opentelemetry.OpenTelemetryTracing

import java.nio.file.Path

import scala.concurrent.Future
import scala.concurrent.duration.*

/** The books API with what a deployment behind a browser front end adds: CORS, compression and metrics. */
object Production:
  def server(books: BooksServer, metrics: PrometheusMetrics = PrometheusMetrics()): NettyServer =
    withMetrics(metrics)(withCompression(
      // start:cors
      NettyServer()
        .addEndpoints(books.endpoints)
        .withCors(
          Cors
            .allowing("https://books.example.com", "http://localhost:5173")
            .withCredentials // the front end sends its session cookie
            .withExposedHeaders("Location")
            .withMaxAge(10.minutes)
        )
        // end:cors
    ))

  def withCompression(server: NettyServer): NettyServer =
    // start:compression
    server.withCompression(Compression.default.withRequestDecoding(maxDecoded = 10 * 1024 * 1024))
    // end:compression

  def withMetrics(metrics: PrometheusMetrics)(server: NettyServer): NettyServer =
    // start:metrics
    server
      .withInterceptor(metrics.interceptor)
      .addEndpoint(metrics.endpoint[Future]()) // GET /metrics
    // end:metrics

  /** The front end's built files beside the API, a single-page app served from `/`. */
  def withFrontEnd(app: Path)(server: NettyServer): NettyServer =
    // start:static
    server.addEndpoint(
      StaticFiles
        .directory(app) // the front end's build: index.html, assets/app-3f9a1c.js, …
        .withFallback("index.html") // its own routes (/books/42/edit) load the app
        .withPrecompressed // app-3f9a1c.js.br and .gz beside app-3f9a1c.js
        .withCacheControl("no-cache") // checked each time: a 304 while unchanged
        .endpoint[Future]("")
    )
    // end:static

  /** Spans and metrics for OpenTelemetry, exported as `openTelemetry` (an SDK, or the Java agent's) says. */
  def withOpenTelemetry(openTelemetry: OpenTelemetry)(server: NettyServer): NettyServer =
    // start:opentelemetry
    server
      .withInterceptor(OpenTelemetryTracing(openTelemetry).interceptor) // a span per request
      .withInterceptor(OpenTelemetryMetrics(openTelemetry).interceptor) // http.server.request.duration, …
    // end:opentelemetry

  /** HTTPS on the server itself, from the PEM files a certificate authority (or `openssl`) gave. */
  def withHttps(certificateChain: Path, privateKey: Path)(server: NettyServer): NettyServer =
    // start:tls
    server.withTls(Tls.pem(certificateChain, privateKey)) // TLS 1.3 and 1.2; .withClientAuth(…) for mutual TLS
    // end:tls

  /** HTTP/2 beside HTTP/1.1: h2 by ALPN over TLS, h2c on plain connections. */
  def withHttp2(server: NettyServer): NettyServer =
    // start:http2
    server.withHttp2(Http2(maxConcurrentStreams = 100)) // h2 over TLS, h2c on plain connections; HTTP/1.1 still
    // end:http2
