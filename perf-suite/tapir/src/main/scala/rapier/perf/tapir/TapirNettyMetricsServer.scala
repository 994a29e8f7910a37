package rapier.perf.tapir

import io.prometheus.metrics.model.registry.PrometheusRegistry
import rapier.perf.common.{PerfServer, ServerConfig}
import sttp.tapir.server.metrics.prometheus.PrometheusMetrics
import sttp.tapir.server.netty.{NettyFutureServer, NettyFutureServerBinding, NettyFutureServerOptions}

import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/**
 * [[TapirNettyServer]] with Tapir's Prometheus metrics, as its documentation adds them: the default metrics on a
 * registry of their own, through the options' metrics interceptor; the server log off.
 */
final class TapirNettyMetricsServer extends PerfServer:
  private given ExecutionContext = ExecutionContext.global
  private var binding: NettyFutureServerBinding | Null = null
  private var routes = 0

  def start(config: ServerConfig): Int =
    val metrics = PrometheusMetrics.default[Future](registry = PrometheusRegistry())
    val options = NettyFutureServerOptions.customiseInterceptors
      .serverLog(None)
      .metricsInterceptor(metrics.metricsInterceptor())
      .options
    val server = NettyFutureServer(options, TapirNettyServer.nettyConfig(config))
      .addEndpoints((0 until config.routes).toList.flatMap(TapirNettyServer.endpoints))
    routes = server.routes.size
    val started = Await.result(server.start(), 30.seconds)
    binding = started
    started.port

  def routeSets: Int = routes

  def stop(): Unit = if binding != null then Await.result(binding.nn.stop(), 30.seconds)
