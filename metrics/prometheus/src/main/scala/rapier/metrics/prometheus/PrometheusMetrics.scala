package rapier.metrics.prometheus

import io.prometheus.metrics.core.metrics.{Counter, Gauge, Histogram}
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter
import io.prometheus.metrics.model.registry.PrometheusRegistry
import rapier.*
import rapier.model.HeaderNames
import rapier.server.*
import rapier.server.interceptor.{Interceptor, Observing}

import java.io.ByteArrayOutputStream

/**
 * Prometheus metrics of a server's requests, on `prometheus-metrics-core`: add [[interceptor]] to the server's options
 * (`ServerOptions.withInterceptor`) and serve [[endpoint]] beside the others.
 *
 *   - `http_server_requests_total`: requests answered, by method, route and status
 *   - `http_server_request_duration_seconds`: a histogram of the time to the answer's start, by the same labels
 *   - `http_server_active_requests`: requests in progress, by method and route
 *   - `http_server_request_body_size_bytes`, `http_server_response_body_size_bytes`: the sizes that are known before the
 *     body is read or sent (a declared `Content-Length`, a body in memory or of known length), by method and route
 *
 * Labels never come from what a client sends as it is: the route is the endpoint's path template (`/books/{id}`, the
 * same for `/books/1` and `/books/2`), `unmatched` when no endpoint took the request; a method outside RFC 9110's is
 * `_OTHER`. A request whose logic failed counts with the 500 the server answers it with.
 */
final class PrometheusMetrics(val registry: PrometheusRegistry = PrometheusRegistry.defaultRegistry):
  import PrometheusMetrics.*

  private val requests = Counter
    .builder()
    .name("http_server_requests_total")
    .help("Requests answered, by method, route template and status")
    .labelNames("method", "route", "status")
    .register(registry)

  private val duration = Histogram
    .builder()
    .name("http_server_request_duration_seconds")
    .help("Time from a request's arrival at Rapier to the start of its answer")
    .labelNames("method", "route", "status")
    .classicOnly()
    .register(registry)

  private val active = Gauge
    .builder()
    .name("http_server_active_requests")
    .help("Requests being answered, by method and route template")
    .labelNames("method", "route")
    .register(registry)

  private val requestSize = sizes("http_server_request_body_size_bytes", "Request bodies' declared sizes")
  private val responseSize = sizes("http_server_response_body_size_bytes", "Response bodies' sizes, when known")

  private def sizes(name: String, help: String) =
    Histogram
      .builder()
      .name(name)
      .help(help)
      .labelNames("method", "route")
      .classicExponentialUpperBounds(64, 4, 10)
      .classicOnly()
      .register(registry)

  /** Records every request of every route; its labels for the route are made once, when the server starts. */
  val interceptor: Interceptor = new Interceptor:
    def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
      val template = Observing.template(route) match
        case null => Unmatched
        case t: String => t
      request =>
        val method = Observing.method(request.method)
        val inProgress = active.labelValues(method, template)
        inProgress.inc()
        val start = System.nanoTime()
        val declared = Observing.declaredBodySize(request)
        if declared >= 0 then requestSize.labelValues(method, template).observe(declared.toDouble)
        Observing.answered(next, request) { (status, size, _) =>
          inProgress.dec()
          val code = statusLabel(status)
          requests.labelValues(method, template, code).inc()
          duration.labelValues(method, template, code).observe((System.nanoTime() - start) / 1e9)
          if size >= 0 then responseSize.labelValues(method, template).observe(size.toDouble)
        }

  /** `GET /metrics` (or another path) answering the registry's metrics in Prometheus's text format. */
  def endpoint[F[_]](path: String*)(using m: Monad[F]): ServerEndpoint[F] =
    val segments = if path.isEmpty then List("metrics") else path.toList
    endpoint0(segments).serverLogicSuccess[F](_ => m.unit(scrape()))

  private def endpoint0(segments: List[String]) =
    rapier.endpoint.get
      .in(segments.map(pathSegment).reduceLeft[EndpointInput[Unit]](_.and(_)))
      .out(header(HeaderNames.ContentType, Writer.getContentType))
      .out(byteArrayBody)

  /** The registry's metrics in Prometheus's text format. */
  def scrape(): Array[Byte] =
    val out = ByteArrayOutputStream(4096)
    Writer.write(out, registry.scrape())
    out.toByteArray

object PrometheusMetrics:
  private val Unmatched = "unmatched"
  private val Writer = PrometheusTextFormatWriter.create()
  private val Statuses = Array.tabulate(600)(_.toString)

  private def statusLabel(status: Int): String = if status >= 0 && status < 600 then Statuses(status) else "_OTHER"
