package rapier.metrics.opentelemetry

import io.opentelemetry.api.OpenTelemetry
import io.opentelemetry.api.common.{AttributeKey, Attributes}
import io.opentelemetry.api.metrics.{DoubleHistogram, LongHistogram, LongUpDownCounter, Meter}
import rapier.server.*
import rapier.server.interceptor.{Interceptor, Observing}

import java.util.concurrent.atomic.AtomicReferenceArray
import scala.jdk.CollectionConverters.*

/**
 * OpenTelemetry metrics of a server's requests, as the HTTP semantic conventions name them: add [[interceptor]] to
 * the server's options (`ServerOptions.withInterceptor`); the `OpenTelemetry` given exports them.
 *
 *   - `http.server.request.duration` (s): a histogram of the time to the answer's start
 *   - `http.server.active_requests`: requests in progress
 *   - `http.server.request.body.size`, `http.server.response.body.size` (By): sizes known before the body is read or
 *     sent
 *
 * with `http.request.method`, `http.route` (the endpoint's template, `/books/{id}`; absent when no endpoint took the
 * request), `http.response.status_code`, `url.scheme` and, for a 5xx or a failed logic, `error.type`. Nothing comes
 * raw from the client: a method outside RFC 9110's is `_OTHER`. The attributes of each route, method and status are
 * made once and kept.
 */
final class OpenTelemetryMetrics(meter: Meter):
  def this(openTelemetry: OpenTelemetry) = this(openTelemetry.getMeter(OpenTelemetryMetrics.Scope))

  import OpenTelemetryMetrics.*

  private val duration: DoubleHistogram = meter
    .histogramBuilder("http.server.request.duration")
    .setUnit("s")
    .setDescription("Duration of HTTP server requests.")
    .setExplicitBucketBoundariesAdvice(DurationBuckets)
    .build()

  private val active: LongUpDownCounter = meter
    .upDownCounterBuilder("http.server.active_requests")
    .setUnit("{request}")
    .setDescription("Number of active HTTP server requests.")
    .build()

  private def sizes(name: String, description: String): LongHistogram =
    meter.histogramBuilder(name).setUnit("By").setDescription(description).ofLongs().build()

  private val requestSize = sizes("http.server.request.body.size", "Size of HTTP server request bodies.")
  private val responseSize = sizes("http.server.response.body.size", "Size of HTTP server response bodies.")

  /** Records every request of every route. */
  val interceptor: Interceptor = new Interceptor:
    def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
      val plain = RouteAttributes(Observing.template(route), "http")
      val secure = RouteAttributes(Observing.template(route), "https")
      request =>
        val attributes = if request.secure then secure else plain
        val method = Observing.methodIndex(request.method)
        val activeAttributes = attributes.active(method)
        active.add(1, activeAttributes)
        val start = System.nanoTime()
        val declared = Observing.declaredBodySize(request)
        Observing.answered(next, request) { (status, size, failure) =>
          active.add(-1, activeAttributes)
          val recorded = if failure == null then attributes.of(method, status) else attributes.failed(method, failure)
          duration.record((System.nanoTime() - start) / 1e9, recorded)
          if declared >= 0 then requestSize.record(declared, recorded)
          if size >= 0 then responseSize.record(size, recorded)
        }

object OpenTelemetryMetrics:
  private val Scope = "rapier.server"

  private val DurationBuckets =
    List(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0).map(Double.box).asJava

  val Method: AttributeKey[String] = AttributeKey.stringKey("http.request.method")
  val Route: AttributeKey[String] = AttributeKey.stringKey("http.route")
  val Status: AttributeKey[java.lang.Long] = AttributeKey.longKey("http.response.status_code")
  val Scheme: AttributeKey[String] = AttributeKey.stringKey("url.scheme")
  val ErrorType: AttributeKey[String] = AttributeKey.stringKey("error.type")

  private val Methods = Observing.methods

  /** The attribute sets of one route, made on first use and kept: one per method, and per method and status. */
  private final class RouteAttributes(template: String | Null, scheme: String):
    private val byMethod = Methods.map { m =>
      val b = Attributes.builder().put(Method, m).put(Scheme, scheme)
      if template != null then b.put(Route, template.nn)
      b.build()
    }
    private val actives = Methods.map(m => Attributes.of(Method, m, Scheme, scheme))
    // Statuses 100 to 599 of each method, filled as they are met; races only make the same set twice.
    private val byStatus = AtomicReferenceArray[Attributes](Methods.length * 500)

    def active(m: Int): Attributes = actives(m)

    def of(m: Int, status: Int): Attributes =
      if status < 100 || status > 599 then withStatus(m, status)
      else
        val slot = m * 500 + status - 100
        val known = byStatus.get(slot)
        if known != null then known
        else
          val made = withStatus(m, status)
          byStatus.set(slot, made)
          made

    def failed(m: Int, failure: Throwable): Attributes =
      byMethod(m).toBuilder.put(Status, 500L).put(ErrorType, failure.getClass.getName).build()

    private def withStatus(m: Int, status: Int): Attributes =
      val b = byMethod(m).toBuilder.put(Status, status.toLong)
      if status >= 500 then b.put(ErrorType, status.toString)
      b.build()
