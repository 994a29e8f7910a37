package rapier.perf.servers

import org.apache.pekko.actor.ActorSystem
import rapier.pekko.{PekkoServer, PekkoServerOptions}
import rapier.perf.common.{PerfServer, ServerConfig}

import scala.concurrent.Await
import scala.concurrent.duration.*

/**
 * The suite's endpoints (the same values as [[RapierNettyServer]]'s) on Rapier's pekko-http server, on an actor system
 * with pekko's defaults, as the vanilla twin's, and the server's defaults except for the request log, which the Rapier
 * variant turns off and the RapierLog variant keeps.
 */
final class RapierPekkoServer extends PerfServer:
  private var system: ActorSystem | Null = null
  private var binding: PekkoServer.Binding | Null = null

  def start(config: ServerConfig): Int =
    val s = ActorSystem("rapier-pekko")
    system = s
    val endpoints = (0 until config.routes).toList.flatMap(RapierNettyServer.endpoints(_)) ++ StudyLogic.endpoints :+
      RapierNettyServer.statics
    val started = PekkoServer(endpoints, SuiteOptions(PekkoServerOptions(), config)).withSystem(s).start()
    binding = started
    started.port

  /** One server compiles every endpoint into one routing trie. */
  def routeSets: Int = 1

  def stop(): Unit =
    if binding != null then binding.nn.stop()
    if system != null then Await.ready(system.nn.terminate(), 10.seconds)
