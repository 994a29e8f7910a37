package rapier.perf.tapir

import rapier.perf.common.{PerfServer, ServerConfig}
import sttp.shared.Identity
import sttp.tapir.server.ServerEndpoint
import sttp.tapir.server.netty.sync.{NettySyncServer, NettySyncServerBinding, NettySyncServerOptions}

import java.util.concurrent.{CompletableFuture, CountDownLatch, TimeUnit}

/**
 * The suite's endpoints on Tapir's Netty server for direct style (a virtual thread per request, JDK 21 or newer), set
 * up as Tapir's documentation sets it up: every endpoint in one `addEndpoints` call, started inside an Ox `supervised`
 * scope that lives until `stop`. Tapir's defaults otherwise, except for what every server of the suite shares.
 */
final class TapirNettySyncServer extends PerfServer:
  private val stopping = CountDownLatch(1)
  private val stoppedAll = CountDownLatch(1)
  private var routes = 0

  def start(config: ServerConfig): Int =
    val options =
      if config.requestLog then NettySyncServerOptions.default
      else NettySyncServerOptions.customiseInterceptors.serverLog(None).options
    val server = NettySyncServer(options, TapirNettyServer.nettyConfig(config))
      .addEndpoints((0 until config.routes).toList.flatMap(TapirNettySyncServer.endpoints))
    routes = 1 + server.endpointsWithOptions.size
    val port = CompletableFuture[Int]()
    val scope = Thread(() => serve(server, port), "tapir-netty-sync")
    scope.start()
    port.get(30, TimeUnit.SECONDS)

  /**
   * Runs the server in an Ox `supervised` scope until `stop`. The scope's type names a JDK 21 class (its structured task
   * scope), which the JDK 17 compiler of the suite can't read: the scope is opened and handed to `start` by reflection.
   */
  private def serve(server: NettySyncServer, port: CompletableFuture[Int]): Unit =
    try
      val supervisedClass = Class.forName("ox.supervised$package$")
      val supervised = supervisedClass.getMethod("supervised", classOf[Function1[?, ?]])
      val start = classOf[NettySyncServer].getMethod("start", Class.forName("ox.Ox"))
      val body: Function1[AnyRef, AnyRef] = scope =>
        val binding = start.invoke(server, scope).asInstanceOf[NettySyncServerBinding]
        port.complete(binding.port)
        stopping.await()
        binding.stop()
        null
      supervised.invoke(supervisedClass.getField("MODULE$").get(null), body)
    catch case e: Throwable => port.completeExceptionally(e)
    finally stoppedAll.countDown()

  /**
   * The endpoints added without options of their own are one route; each `addEndpoints` call with options is another,
   * which Tapir's Netty server tries in turn.
   */
  def routeSets: Int = routes

  def stop(): Unit =
    stopping.countDown()
    stoppedAll.await(30, TimeUnit.SECONDS)

object TapirNettySyncServer:
  def endpoints(n: Int): List[ServerEndpoint[Any, Identity]] = TapirEndpoints[Identity](n, pure)

  private val pure: [A] => A => Identity[A] = [A] => (a: A) => a
