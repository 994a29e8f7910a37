package rapier.tracing.opentelemetry

import io.opentelemetry.api.OpenTelemetry
import io.opentelemetry.api.common.AttributeKey
import io.opentelemetry.api.trace.{Span, SpanKind, StatusCode, Tracer}
import io.opentelemetry.context.Context
import io.opentelemetry.context.propagation.{TextMapGetter, TextMapPropagator}
import rapier.server.*
import rapier.server.interceptor.{Interceptor, Observing}
import rapier.server.spi.ServerRequest

import java.lang.Iterable as JIterable
import java.util.concurrent.Executor
import scala.jdk.CollectionConverters.*

/**
 * OpenTelemetry server spans, one per request: add [[interceptor]] to the server's options
 * (`ServerOptions.withInterceptor`); the `OpenTelemetry` given exports them and propagates their context (W3C
 * `traceparent` and `tracestate` with the default propagators).
 *
 * A span is named by its route (`GET /books/{id}`, or the method alone when no endpoint took the request), is the
 * child of the trace the request's headers carry, and has the HTTP semantic conventions' attributes
 * (`http.request.method`, `http.route`, `url.path`, `url.scheme`, `http.response.status_code`, `client.address`,
 * `user_agent.original`, `network.protocol.version`). A 5xx, a failed logic (its exception recorded) or a request
 * cancelled before its answer is an error.
 *
 * The span is current (`Span.current()`, `Context.current()`) while the security logic and the logic run: all along
 * in direct style and for cats-effect and ZIO effects, whichever threads they run on; for a `Future`, while it is
 * made (callbacks on other execution contexts see it when those are wrapped with `Context.current().wrap`). Its ids
 * are added to the request's line in the request log (`trace_id=… span_id=…`).
 */
final class OpenTelemetryTracing(openTelemetry: OpenTelemetry):
  import OpenTelemetryTracing.*

  private val tracer: Tracer = openTelemetry.getTracer(Scope)
  private val propagator: TextMapPropagator = openTelemetry.getPropagators.getTextMapPropagator

  /** Traces every request of every route. */
  val interceptor: Interceptor = new Interceptor:
    def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
      val template = Observing.template(route)
      request =>
        val method = Observing.method(request.method)
        val name = if method == "_OTHER" then "HTTP" else method
        val parent = propagator.extract(Context.root(), request, Headers)
        val builder = tracer
          .spanBuilder(if template == null then name else s"$name $template")
          .setParent(parent)
          .setSpanKind(SpanKind.SERVER)
          .setAttribute(Method, method)
          .setAttribute(Path, Observing.path(request))
          .setAttribute(Scheme, if request.secure then "https" else "http")
          .setAttribute(ProtocolVersion, Observing.protocolVersion(request.protocol))
        if method == "_OTHER" then builder.setAttribute(MethodOriginal, request.method.name)
        if template != null then builder.setAttribute(RouteKey, template.nn)
        request.remoteAddressOrNull match
          case null => ()
          case a => builder.setAttribute(ClientAddress, a.nn.getAddress.getHostAddress)
        request.headerOrNull("User-Agent") match
          case null => ()
          case agent: String => builder.setAttribute(UserAgent, agent)
        val traced = Traced(builder.startSpan(), parent)
        request.logicContext = traced
        request.logNote = traced
        Observing.answered(next, request)(traced.end)

object OpenTelemetryTracing:
  private val Scope = "rapier.server"

  val Method: AttributeKey[String] = AttributeKey.stringKey("http.request.method")
  val MethodOriginal: AttributeKey[String] = AttributeKey.stringKey("http.request.method_original")
  val RouteKey: AttributeKey[String] = AttributeKey.stringKey("http.route")
  val Path: AttributeKey[String] = AttributeKey.stringKey("url.path")
  val Scheme: AttributeKey[String] = AttributeKey.stringKey("url.scheme")
  val Status: AttributeKey[java.lang.Long] = AttributeKey.longKey("http.response.status_code")
  val ProtocolVersion: AttributeKey[String] = AttributeKey.stringKey("network.protocol.version")
  val ClientAddress: AttributeKey[String] = AttributeKey.stringKey("client.address")
  val UserAgent: AttributeKey[String] = AttributeKey.stringKey("user_agent.original")
  val ErrorType: AttributeKey[String] = AttributeKey.stringKey("error.type")

  /** A request's headers, as a propagator reads the trace it carries. */
  private object Headers extends TextMapGetter[ServerRequest]:
    override def keys(request: ServerRequest): JIterable[String] = request.headers.map(_.name).asJava
    def get(request: ServerRequest, key: String): String =
      if request == null then null else request.headerOrNull(key).asInstanceOf[String]

  /** A request's span: ended by its answer, its failure or its cancellation, whichever comes first. */
  private final class Traced(val span: Span, parent: Context) extends LogicContext:
    private val context = parent.`with`(span)

    def attach(): AutoCloseable = context.makeCurrent()
    def wrap(executor: Executor): Executor = context.wrap(executor)

    // The request log's words for it
    override def toString: String =
      val ids = span.getSpanContext
      s"trace_id=${ids.getTraceId} span_id=${ids.getSpanId}"

    val end: (Int, Long, Throwable | Null) => Unit = (status, _, failure) =>
      span.setAttribute(Status, status.toLong)
      if failure != null then
        span.recordException(failure.nn)
        span.setAttribute(ErrorType, failure.nn.getClass.getName)
        span.setStatus(StatusCode.ERROR)
      else if status >= 500 then
        span.setAttribute(ErrorType, status.toString)
        span.setStatus(StatusCode.ERROR)
      span.end()
