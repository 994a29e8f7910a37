package rapier.perf.servers

import cats.effect.{IO, Resource}
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator
import io.opentelemetry.context.propagation.ContextPropagators
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.`export`.{BatchSpanProcessor, SpanExporter}
import io.prometheus.metrics.model.registry.PrometheusRegistry
import rapier.metrics.prometheus.PrometheusMetrics
import rapier.netty.NettyServerOptions
import rapier.netty.cats.NettyCatsServer
import rapier.netty.zioeffect.NettyZioServer
import rapier.perf.common.ServerConfig
import rapier.server.{Binding, ServerEndpoint}
import rapier.tracing.opentelemetry.OpenTelemetryTracing
import zio.{Scope, Task, ZIO}

/**
 * What the suite's observed servers add to Rapier's options, as a user sets it up: Prometheus metrics on a registry of
 * their own, or OpenTelemetry spans from the SDK, every request sampled and exported by its batch processor to an
 * exporter that drops them (what a span costs the server, with no collector's network beside it).
 */
object Observed:
  def metrics(options: NettyServerOptions): NettyServerOptions =
    options.modifyServerOptions(_.withInterceptor(PrometheusMetrics(PrometheusRegistry()).interceptor))

  private lazy val openTelemetry = OpenTelemetrySdk
    .builder()
    .setTracerProvider(
      SdkTracerProvider.builder().addSpanProcessor(BatchSpanProcessor.builder(SpanExporter.composite()).build()).build()
    )
    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
    .build()

  def tracing(options: NettyServerOptions): NettyServerOptions =
    options.modifyServerOptions(_.withInterceptor(OpenTelemetryTracing(openTelemetry).interceptor))

/** Rapier on Netty with Prometheus metrics. */
final class RapierNettyMetricsServer extends RapierNettyServer:
  override protected def instrument(options: NettyServerOptions): NettyServerOptions = Observed.metrics(options)

/** Rapier on Netty with OpenTelemetry spans. */
final class RapierNettyTracingServer extends RapierNettyServer:
  override protected def instrument(options: NettyServerOptions): NettyServerOptions = Observed.tracing(options)

/** Rapier on Netty with `IO` logic and OpenTelemetry spans, current on the threads the logic's `IO` runs on. */
final class RapierNettyCatsTracingServer extends RapierCatsServer.Running:
  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[IO]]): Resource[IO, Binding] =
    NettyCatsServer[IO](endpoints, Observed.tracing(RapierNettyServer.options(config))).start()

/** Rapier on Netty with ZIO logic and OpenTelemetry spans, current on the threads the logic's effect runs on. */
final class RapierNettyZioTracingServer extends RapierZioRunning:
  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[Task]]): ZIO[Scope, Throwable, Binding] =
    NettyZioServer(endpoints, Observed.tracing(RapierNettyServer.options(config))).start()
