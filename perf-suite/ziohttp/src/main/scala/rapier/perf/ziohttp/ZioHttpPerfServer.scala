package rapier.perf.ziohttp

import rapier.perf.common.{PerfApi, PerfServer, ServerConfig}
import zio.*
import zio.http.*
import zio.http.netty.NettyConfig

import java.util.concurrent.{CompletableFuture, TimeUnit}

/**
 * A server of the suite on zio-http: `routes` served by `Server.install`, as zio-http's documentation starts a server,
 * on `0.0.0.0` and the configured port. zio-http's defaults except for what every server of the suite shares: the
 * number of event loop threads, and the body limit (zio-http aggregates a request's body up to its limit, 100 KB by
 * default, which the 5 MB scenarios need raised to [[PerfApi.MaxBodySize]]). Compiled on zio-http's own side of the
 * suite, with the Netty version zio-http brings.
 */
abstract class ZioHttpPerfServer extends PerfServer:
  private val runtime = Runtime.default
  private var fiber: Fiber.Runtime[Throwable, Nothing] | Null = null

  /** What the server serves. */
  protected def routes(config: ServerConfig): Routes[Any, Response]

  final def start(config: ServerConfig): Int =
    val bound = CompletableFuture[Int]()
    val serverConfig =
      Server.Config.default.binding("0.0.0.0", config.port).disableRequestStreaming(PerfApi.MaxBodySize)
    val nettyConfig = NettyConfig.default.maxThreads(config.threads)
    val program = (Server.install(routes(config)).flatMap(port => ZIO.succeed(bound.complete(port))) *> ZIO.never)
      .provide(ZLayer.succeed(serverConfig), ZLayer.succeed(nettyConfig), Server.customized)
    Unsafe.unsafe(implicit unsafe => fiber = runtime.unsafe.fork(program))
    bound.get(30, TimeUnit.SECONDS)

  /** One `Routes` value holds every route; zio-http compiles it into one routing tree. */
  final def routeSets: Int = 1

  final def stop(): Unit =
    val running = fiber
    if running != null then Unsafe.unsafe(implicit unsafe => runtime.unsafe.run(running.interrupt).getOrThrow())
