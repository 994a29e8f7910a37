package rapier.testkit

import io.opentelemetry.api.common.{AttributeKey, Attributes}
import io.opentelemetry.api.trace.{Span, SpanKind, StatusCode}
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator
import io.opentelemetry.context.propagation.ContextPropagators
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.metrics.SdkMeterProvider
import io.opentelemetry.sdk.metrics.data.MetricData
import io.opentelemetry.sdk.testing.exporter.{InMemoryMetricReader, InMemorySpanExporter}
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.data.SpanData
import io.opentelemetry.sdk.trace.`export`.SimpleSpanProcessor
import org.slf4j.event.Level
import rapier.*
import rapier.metrics.opentelemetry.OpenTelemetryMetrics
import rapier.server.*
import rapier.server.interceptor.RequestLog
import rapier.tracing.opentelemetry.OpenTelemetryTracing

import scala.concurrent.Future
import scala.jdk.CollectionConverters.*

/**
 * OpenTelemetry (`rapier-tracing-opentelemetry`, `rapier-metrics-opentelemetry`): a server span per request, child of
 * the trace its headers carry, current while the logic runs, with the HTTP semantic conventions' names; the same
 * conventions' metrics, by route template.
 */
trait OpenTelemetryTests extends ServerTestSupport:
  private val traceId = "0af7651916cd43dd8448eb211c80319c"
  private val parentId = "b7ad6b7169203331"
  private val traceparent = "traceparent" -> s"00-$traceId-$parentId-01"

  /** The trace and span ids current while the logic runs. */
  private def current(): String =
    val ids = Span.current().getSpanContext
    s"${ids.getTraceId} ${ids.getSpanId}"

  private val book = endpoint.get.in("o" / "books" / path[Int]("id")).out(stringBody).serverLogicSuccess[Future] { _ =>
    Future.successful(current())
  }
  private val echo = endpoint.post.in("o" / "echo").in(stringBody).out(stringBody).serverLogicSuccess[Future] { _ =>
    Future.successful(current())
  }
  private val failing = endpoint.get.in("o" / "fail").out(stringBody).serverLogicSuccess[Future](_ => sys.error("bug"))
  private val unavailable = endpoint.get
    .in("o" / "busy")
    .out(stringBody)
    .errorOut(statusCode(rapier.model.StatusCode.ServiceUnavailable).and(stringBody))
    .serverLogic[Future](_ => Future.successful(Left("busy")))

  private def withTracing[T](options: ServerOptions = ServerOptions.default.withoutRequestLog)(
      body: (Target, () => List[SpanData]) => T
  ): T =
    val exporter = InMemorySpanExporter.create()
    val provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()
    val sdk = OpenTelemetrySdk
      .builder()
      .setTracerProvider(provider)
      .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
      .build()
    val traced = options.withInterceptor(OpenTelemetryTracing(sdk).interceptor)
    try
      withServerConfig(TestServerConfig(serverOptions = traced))(book, echo, failing, unavailable) { t =>
        body(t, () => exporter.getFinishedSpanItems.asScala.toList)
      }
    finally provider.close()

  /** The one span ended for the request answered with `body`'s ids, or the only span named `name`. */
  private def spanNamed(spans: () => List[SpanData], name: String): SpanData =
    eventually(spans().exists(_.getName == name), s"a span named $name in ${spans().map(_.getName)}")
    spans().filter(_.getName == name) match
      case one :: Nil => one
      case many => fail(s"${many.size} spans named $name")

  private def string(span: SpanData, key: String): String | Null = span.getAttributes.get(AttributeKey.stringKey(key))
  private def long(span: SpanData, key: String): Option[Long] =
    Option(span.getAttributes.get(AttributeKey.longKey(key))).map(_.longValue)

  test("tracing: a server span per request, named by its route, child of its traceparent, current in the logic"):
    withTracing() { (t, spans) =>
      val seen = t.get("/o/books/7", traceparent, "User-Agent" -> "kit/1").body.split(' ')
      assertEquals(seen(0), traceId, "the logic runs in the request's trace")
      val span = spanNamed(spans, "GET /o/books/{id}")
      assertEquals(span.getSpanId, seen(1), "and its span is the server's")
      assertEquals(span.getKind, SpanKind.SERVER)
      assertEquals(span.getTraceId, traceId)
      assertEquals(span.getParentSpanId, parentId)
      assertEquals(string(span, "http.request.method"), "GET")
      assertEquals(string(span, "http.route"), "/o/books/{id}")
      assertEquals(string(span, "url.path"), "/o/books/7")
      assertEquals(string(span, "url.scheme"), protocol.scheme)
      assertEquals(string(span, "network.protocol.version"), protocol.version)
      assertEquals(string(span, "user_agent.original"), "kit/1")
      assert(string(span, "client.address") != null)
      assertEquals(long(span, "http.response.status_code"), Some(200L))
      assertEquals(span.getStatus.getStatusCode, StatusCode.UNSET)
      val posted = t.post("/o/echo", "x" * 100_000, traceparent).body.split(' ')
      assertEquals(posted(0), traceId, "current too when the logic runs once the body has arrived")
      assertEquals(spanNamed(spans, "POST /o/echo").getSpanId, posted(1))
      val fresh = t.get("/o/books/8").body.split(' ')
      assertNotEquals(fresh(0), traceId, "without a traceparent, a trace of its own")
    }

  test("tracing: a failed logic and a 5xx are errors; a 404 is not, and names no route"):
    withTracing() { (t, spans) =>
      assertEquals(t.get("/o/fail").status, 500)
      val failed = spanNamed(spans, "GET /o/fail")
      assertEquals(failed.getStatus.getStatusCode, StatusCode.ERROR)
      assertEquals(string(failed, "error.type"), classOf[RuntimeException].getName)
      assert(failed.getEvents.asScala.exists(_.getName == "exception"), failed.getEvents)
      assertEquals(long(failed, "http.response.status_code"), Some(500L))
      assertEquals(t.get("/o/busy").status, 503)
      val busy = spanNamed(spans, "GET /o/busy")
      assertEquals((busy.getStatus.getStatusCode, string(busy, "error.type")), (StatusCode.ERROR, "503"))
      assertEquals(t.get("/o/nothing/here").status, 404)
      val unmatched = spanNamed(spans, "GET")
      assertEquals(string(unmatched, "http.route"), null)
      assertEquals(long(unmatched, "http.response.status_code"), Some(404L))
      assertEquals(unmatched.getStatus.getStatusCode, StatusCode.UNSET)
    }

  test("tracing: the request log's line carries the trace's ids"):
    val logger = CapturingLogger()
    withTracing(ServerOptions.default.withRequestLog(RequestLog(logger, Level.INFO))) { (t, spans) =>
      val ids = t.get("/o/books/1", traceparent).body.split(' ')
      eventually(logger.written.exists(_._2.startsWith("GET /o/books/{id} 200")), s"a line in ${logger.written}")
      val line = logger.written.map(_._2).find(_.startsWith("GET /o/books/{id} 200")).get
      assert(line.endsWith(s"trace_id=${ids(0)} span_id=${ids(1)}"), line)
    }

  test("metrics (OpenTelemetry): durations, requests in progress and body sizes by method, route and status"):
    val reader = InMemoryMetricReader.create()
    val provider = SdkMeterProvider.builder().registerMetricReader(reader).build()
    val metrics = OpenTelemetryMetrics(provider.get("rapier-kit"))
    val options = ServerOptions.default.withoutRequestLog.withInterceptor(metrics.interceptor)
    try
      withServerConfig(TestServerConfig(serverOptions = options))(book, echo, failing) { t =>
        for id <- 1 to 3 do assertEquals(t.get(s"/o/books/$id").status, 200)
        assertEquals(t.get("/o/nothing").status, 404)
        assertEquals(t.get("/o/fail").status, 500)
        assertEquals(t.post("/o/echo", "hello").status, 200)
        def collected = reader.collectAllMetrics().asScala.toList
        def metric(name: String): MetricData =
          collected.find(_.getName == name).getOrElse(fail(s"no $name in ${collected.map(_.getName)}"))
        def attributes(method: String, route: String | Null, status: Long): Attributes =
          val b = Attributes.builder().put("http.request.method", method).put("url.scheme", protocol.scheme)
          if route != null then b.put("http.route", route.nn)
          b.put("http.response.status_code", status).build()
        eventually(
          metric("http.server.request.duration").getHistogramData.getPoints.asScala.map(_.getCount).sum == 6,
          "six requests timed"
        )
        val durations = metric("http.server.request.duration")
        assertEquals(durations.getUnit, "s")
        val points = durations.getHistogramData.getPoints.asScala.toList
        def countOf(a: Attributes) = points.find(_.getAttributes == a).map(_.getCount)
        assertEquals(countOf(attributes("GET", "/o/books/{id}", 200)), Some(3L))
        assertEquals(countOf(attributes("GET", null, 404)), Some(1L))
        val failedAttributes = attributes("GET", "/o/fail", 500).toBuilder
          .put("error.type", classOf[RuntimeException].getName)
          .build()
        assertEquals(countOf(failedAttributes), Some(1L))
        val sizes = metric("http.server.request.body.size").getHistogramData.getPoints.asScala
        assertEquals(sizes.find(_.getAttributes == attributes("POST", "/o/echo", 200)).map(_.getSum), Some(5.0))
        val active = metric("http.server.active_requests").getLongSumData.getPoints.asScala
        assert(active.nonEmpty && active.forall(_.getValue == 0), active)
        val everything = collected.mkString
        assert(!everything.contains("/o/books/1") && !everything.contains("/o/nothing"), "no raw paths")
      }
    finally provider.close()
