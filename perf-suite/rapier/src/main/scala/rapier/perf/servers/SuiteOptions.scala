package rapier.perf.servers

import rapier.perf.common.{PerfApi, ServerConfig}
import rapier.server.{BackendOptionsOf, Http2, Tls}

import scala.util.chaining.*

/** What every Rapier server of the suite sets, on any backend: every address, the port, the body limit, the request log. */
object SuiteOptions:
  def apply[O <: BackendOptionsOf[O]](defaults: O, config: ServerConfig): O =
    defaults
      .withHost("0.0.0.0")
      .withPort(config.port)
      .withMaxBodySize(PerfApi.MaxBodySize)
      // As the twins, which bound no streamed body
      .withMaxStreamedBodySize(Long.MaxValue)
      .modifyServerOptions(o => if config.requestLog then o else o.withoutRequestLog)
      .modifyServerOptions(o => if config.compression then o.withCompression() else o)
      .pipe(o => config.tls.fold(o)(files => o.withTls(Tls.pem(files.certificate, files.key))))
      .pipe(o => if config.http2 then o.withHttp2(Http2()) else o)
