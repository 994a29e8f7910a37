package rapier.perf.tapir

import io.prometheus.metrics.model.registry.PrometheusRegistry
import rapier.perf.common.ServerConfig
import sttp.tapir.server.metrics.prometheus.PrometheusMetrics
import sttp.tapir.server.netty.NettyFutureServerOptions

import scala.concurrent.Future

/**
 * [[TapirNettyServer]] with Tapir's Prometheus metrics, as its documentation adds them: the default metrics on a
 * registry of their own, through the options' metrics interceptor; the server log off.
 */
final class TapirNettyMetricsServer extends TapirNettyServer:
  override protected def options(config: ServerConfig): NettyFutureServerOptions =
    val metrics = PrometheusMetrics.default[Future](registry = PrometheusRegistry())
    NettyFutureServerOptions.customiseInterceptors.serverLog(
      None
    ).metricsInterceptor(metrics.metricsInterceptor()).options
