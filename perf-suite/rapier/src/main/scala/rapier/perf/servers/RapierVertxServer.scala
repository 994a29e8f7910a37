package rapier.perf.servers

import io.vertx.core.{Vertx, VertxOptions}
import rapier.perf.common.{PerfServer, ServerConfig}
import rapier.vertx.{VertxServer, VertxServerOptions}

import java.util.concurrent.TimeUnit

/**
 * The suite's endpoints (the same values as [[RapierNettyServer]]'s) on Rapier's Vert.x server, with its defaults
 * except for the request log, which the Rapier variant turns off and the RapierLog variant keeps.
 */
final class RapierVertxServer extends PerfServer:
  private var vertx: Vertx | Null = null
  private var binding: VertxServer.Binding | Null = null

  def start(config: ServerConfig): Int =
    val v = RapierVertxServer.newVertx(config)
    vertx = v
    val endpoints = (0 until config.routes).toList.flatMap(RapierNettyServer.endpoints(_)) ++ StudyLogic.endpoints :+
      RapierNettyServer.statics
    val started = VertxServer(endpoints, RapierVertxServer.options(config)).withVertx(v).start()
    binding = started
    started.port

  /** One server compiles every endpoint into one routing trie. */
  def routeSets: Int = 1

  def stop(): Unit =
    if binding != null then binding.nn.stop()
    RapierVertxServer.close(vertx)

object RapierVertxServer:
  /** The options every Rapier server on Vert.x in the suite runs with, whatever its effect. */
  def options(config: ServerConfig): VertxServerOptions = SuiteOptions(VertxServerOptions(), config)

  /** A Vert.x with the suite's event loops, for a Rapier server on Vert.x whatever its effect. */
  def newVertx(config: ServerConfig): Vertx = Vertx.vertx(VertxOptions().setEventLoopPoolSize(config.threads))

  /** Closes what [[newVertx]] made, if it made one, waiting at most 10 s. */
  def close(vertx: Vertx | Null): Unit =
    if vertx != null then vertx.nn.close().toCompletionStage.toCompletableFuture.get(10, TimeUnit.SECONDS)
