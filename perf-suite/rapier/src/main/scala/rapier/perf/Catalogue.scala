package rapier.perf

/**
 * Which classpath a server runs on: Rapier's side (Netty 4.2, and Vert.x 5 on it), Tapir's (the Netty 4.1 and Vert.x 4
 * versions Tapir brings), or zio-http's (the Netty 4.2 and ZIO it brings).
 */
enum Side:
  case Rapier, Tapir, ZioHttp

  /** The system property naming the file that holds this side's class path (written by the build). */
  def classpathProperty: String = s"rapier.perf.classpath.${toString.toLowerCase}"

/**
 * What a server is, for reports: the bare server, Rapier on it, or a peer library on it. `packages` are where the
 * library's own code lives, for its share of CPU samples in a profile (`excluded`: the suite's own code under them).
 */
enum Implementation(val packages: List[String], val excluded: List[String]):
  case Vanilla extends Implementation(Nil, Nil)
  case Rapier extends Implementation(List("rapier."), List("rapier.perf."))
  case Tapir extends Implementation(List("sttp."), Nil)

  /** zio-http's typed Endpoint API, its own frames being the endpoint and codec layers over zio-http's server. */
  case ZioHttp extends Implementation(List("zio.http.endpoint.", "zio.http.codec."), Nil)

/**
 * One server of the suite. `twin` names the vanilla server on the same backend and version that its throughput is
 * compared with (none for vanilla servers themselves); `java` is the JDKs it runs on (21 or newer for virtual threads),
 * found by [[Jdks]] when the suite's own doesn't fit; `studies` the latency studies it serves (its `/ws/ts`, `/ws/echo`
 * and `/sse/ts`).
 */
final case class ServerSpec(
    name: String,
    side: Side,
    className: String,
    routes: Int,
    requestLog: Boolean,
    implementation: Implementation,
    twin: Option[String],
    description: String,
    java: JavaNeed = JavaNeed.Baseline,
    studies: Set[Study] = Set.empty
):
  def isVanilla: Boolean = twin.isEmpty

  /**
   * Whether it serves the streaming routes (`POST /pathStream{n}`, `GET /pathFile{n}`): the servers on Rapier's side,
   * vanilla and Rapier alike. Peers are compared on the routes every server has.
   */
  def streams: Boolean = side == Side.Rapier

/** The servers the suite knows, as data: adding a backend means adding entries here (and its server classes). */
object Catalogue:
  private val vanilla = "rapier.perf.vanilla.VanillaNettyServer"
  private val rapier = "rapier.perf.servers.RapierNettyServer"
  private val tapir = "rapier.perf.tapir.TapirNettyServer"
  private val vanillaVertx = "rapier.perf.vanilla.VanillaVertxServer"
  private val rapierVertx = "rapier.perf.servers.RapierVertxServer"
  private val tapirVertx = "rapier.perf.tapir.TapirVertxServer"
  private val rapierNettyCats = "rapier.perf.servers.RapierNettyCatsServer"
  private val rapierVertxCats = "rapier.perf.servers.RapierVertxCatsServer"
  private val rapierNettyZio = "rapier.perf.servers.RapierNettyZioServer"
  private val rapierVertxZio = "rapier.perf.servers.RapierVertxZioServer"
  private val rapierNettySync = "rapier.perf.servers.RapierNettySyncServer"
  private val rapierNettySyncOnLoop = "rapier.perf.servers.RapierNettySyncOnLoopServer"
  private val tapirNettyCats = "rapier.perf.tapir.TapirNettyCatsServer"
  private val tapirVertxCats = "rapier.perf.tapir.TapirVertxCatsServer"
  private val tapirNettySync = "rapier.perf.tapir.TapirNettySyncServer"
  private val virtualThreads = JavaNeed(21, why = "virtual threads")

  /** Virtual threads started on the event loop, by a scheduler of Rapier's own, which needs `java.lang` opened. */
  private val virtualThreadsOnLoop =
    JavaNeed(21, options = List("--add-opens=java.base/java.lang=ALL-UNNAMED"), why = "virtual threads")

  /**
   * tapir-netty-server-sync 1.11.15 runs on Ox 0.5, built on JDK 21's preview of structured concurrency, whose API
   * JDK 25 changed: it starts on JDK 21 to 24 with previews enabled, and fails to load on 25.
   */
  private val oxPreview =
    JavaNeed(21, Some(24), List("--enable-preview"), "Ox 0.5 uses JDK 21's preview StructuredTaskScope")

  private val vanillaHttp4s = "rapier.perf.vanilla.VanillaHttp4sServer"
  private val rapierHttp4s = "rapier.perf.servers.RapierHttp4sServer"
  private val tapirHttp4s = "rapier.perf.tapir.TapirHttp4sServer"
  private val vanillaPekko = "rapier.perf.vanilla.VanillaPekkoServer"
  private val rapierPekko = "rapier.perf.servers.RapierPekkoServer"

  private val vanillaZio = "rapier.perf.ziohttp.ZioHttpVanillaServer"
  private val endpointZio = "rapier.perf.ziohttp.ZioHttpEndpointServer"

  /**
   * The latency studies each server class serves, with its own API for a twin: the vanilla servers (Netty's and
   * Vert.x's on both sides' versions), every Rapier server, and Tapir's where it has WebSockets (its
   * cats-effect servers on Netty and http4s; no server-sent events there). Only the one-route variants run them: the
   * Multi ones are about routing.
   */
  private val studiesOf: Map[String, Set[Study]] =
    List(
      vanilla,
      vanillaVertx,
      vanillaHttp4s,
      vanillaPekko,
      rapier,
      rapierVertx,
      rapierNettyCats,
      rapierVertxCats,
      rapierNettyZio,
      rapierVertxZio,
      rapierHttp4s,
      rapierPekko,
      rapierNettySync,
      rapierNettySyncOnLoop
    ).map(_ -> Study.all).toMap ++
      List(tapirNettyCats, tapirHttp4s).map(_ -> Study.webSockets)

  val servers: List[ServerSpec] = List(
    ServerSpec(
      "netty.Vanilla",
      Side.Rapier,
      vanilla,
      1,
      false,
      Implementation.Vanilla,
      None,
      "hand-written Netty 4.2 handler"
    ),
    ServerSpec(
      "netty.VanillaMulti",
      Side.Rapier,
      vanilla,
      128,
      false,
      Implementation.Vanilla,
      None,
      "hand-written Netty 4.2 handler, 128 routes in a hash map"
    ),
    ServerSpec(
      "netty.future.Rapier",
      Side.Rapier,
      rapier,
      1,
      false,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2, request log off"
    ),
    ServerSpec(
      "netty.future.RapierMulti",
      Side.Rapier,
      rapier,
      128,
      false,
      Implementation.Rapier,
      Some("netty.VanillaMulti"),
      "Rapier on Netty 4.2, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "netty.future.RapierLog",
      Side.Rapier,
      rapier,
      1,
      true,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2, request log on, writing nothing"
    ),
    ServerSpec(
      "vertx.Vanilla",
      Side.Rapier,
      vanillaVertx,
      1,
      false,
      Implementation.Vanilla,
      None,
      "hand-written Vert.x 5 request handler"
    ),
    ServerSpec(
      "vertx.VanillaMulti",
      Side.Rapier,
      vanillaVertx,
      128,
      false,
      Implementation.Vanilla,
      None,
      "Vert.x 5 with a vertx-web Router, 128 routes per kind"
    ),
    ServerSpec(
      "vertx.future.Rapier",
      Side.Rapier,
      rapierVertx,
      1,
      false,
      Implementation.Rapier,
      Some("vertx.Vanilla"),
      "Rapier on Vert.x 5, request log off"
    ),
    ServerSpec(
      "vertx.future.RapierMulti",
      Side.Rapier,
      rapierVertx,
      128,
      false,
      Implementation.Rapier,
      Some("vertx.VanillaMulti"),
      "Rapier on Vert.x 5, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "vertx.future.RapierLog",
      Side.Rapier,
      rapierVertx,
      1,
      true,
      Implementation.Rapier,
      Some("vertx.Vanilla"),
      "Rapier on Vert.x 5, request log on, writing nothing"
    ),
    ServerSpec(
      "netty.cats.Rapier",
      Side.Rapier,
      rapierNettyCats,
      1,
      false,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with cats-effect IO logic, request log off"
    ),
    ServerSpec(
      "netty.cats.RapierMulti",
      Side.Rapier,
      rapierNettyCats,
      128,
      false,
      Implementation.Rapier,
      Some("netty.VanillaMulti"),
      "Rapier on Netty 4.2 with IO logic, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "netty.cats.RapierLog",
      Side.Rapier,
      rapierNettyCats,
      1,
      true,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with IO logic, request log on, writing nothing"
    ),
    ServerSpec(
      "netty.zio.Rapier",
      Side.Rapier,
      rapierNettyZio,
      1,
      false,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with ZIO logic, request log off"
    ),
    ServerSpec(
      "netty.zio.RapierMulti",
      Side.Rapier,
      rapierNettyZio,
      128,
      false,
      Implementation.Rapier,
      Some("netty.VanillaMulti"),
      "Rapier on Netty 4.2 with ZIO logic, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "netty.zio.RapierLog",
      Side.Rapier,
      rapierNettyZio,
      1,
      true,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with ZIO logic, request log on, writing nothing"
    ),
    ServerSpec(
      "netty.sync.Rapier",
      Side.Rapier,
      rapierNettySync,
      1,
      false,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with direct-style logic, a virtual thread per request, request log off",
      java = virtualThreads
    ),
    ServerSpec(
      "netty.sync.RapierMulti",
      Side.Rapier,
      rapierNettySync,
      128,
      false,
      Implementation.Rapier,
      Some("netty.VanillaMulti"),
      "Rapier on Netty 4.2 with direct-style logic, 128 endpoints per kind, request log off",
      java = virtualThreads
    ),
    ServerSpec(
      "netty.sync.RapierLog",
      Side.Rapier,
      rapierNettySync,
      1,
      true,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with direct-style logic, request log on, writing nothing",
      java = virtualThreads
    ),
    ServerSpec(
      "netty.sync.RapierOnLoop",
      Side.Rapier,
      rapierNettySyncOnLoop,
      1,
      false,
      Implementation.Rapier,
      Some("netty.Vanilla"),
      "Rapier on Netty 4.2 with direct-style logic, each virtual thread first run on its connection's loop",
      java = virtualThreadsOnLoop
    ),
    ServerSpec(
      "vertx.cats.Rapier",
      Side.Rapier,
      rapierVertxCats,
      1,
      false,
      Implementation.Rapier,
      Some("vertx.Vanilla"),
      "Rapier on Vert.x 5 with cats-effect IO logic, request log off"
    ),
    ServerSpec(
      "vertx.cats.RapierMulti",
      Side.Rapier,
      rapierVertxCats,
      128,
      false,
      Implementation.Rapier,
      Some("vertx.VanillaMulti"),
      "Rapier on Vert.x 5 with IO logic, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "vertx.cats.RapierLog",
      Side.Rapier,
      rapierVertxCats,
      1,
      true,
      Implementation.Rapier,
      Some("vertx.Vanilla"),
      "Rapier on Vert.x 5 with IO logic, request log on, writing nothing"
    ),
    ServerSpec(
      "vertx.zio.Rapier",
      Side.Rapier,
      rapierVertxZio,
      1,
      false,
      Implementation.Rapier,
      Some("vertx.Vanilla"),
      "Rapier on Vert.x 5 with ZIO logic, request log off"
    ),
    ServerSpec(
      "vertx.zio.RapierMulti",
      Side.Rapier,
      rapierVertxZio,
      128,
      false,
      Implementation.Rapier,
      Some("vertx.VanillaMulti"),
      "Rapier on Vert.x 5 with ZIO logic, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "vertx.zio.RapierLog",
      Side.Rapier,
      rapierVertxZio,
      1,
      true,
      Implementation.Rapier,
      Some("vertx.Vanilla"),
      "Rapier on Vert.x 5 with ZIO logic, request log on, writing nothing"
    ),
    ServerSpec(
      "http4s.Vanilla",
      Side.Rapier,
      vanillaHttp4s,
      1,
      false,
      Implementation.Vanilla,
      None,
      "http4s 0.23 routes written with its DSL, on Ember"
    ),
    ServerSpec(
      "http4s.VanillaMulti",
      Side.Rapier,
      vanillaHttp4s,
      128,
      false,
      Implementation.Vanilla,
      None,
      "http4s 0.23 DSL routes on Ember, 128 route numbers combined with <+>, tried in turn"
    ),
    ServerSpec(
      "http4s.cats.Rapier",
      Side.Rapier,
      rapierHttp4s,
      1,
      false,
      Implementation.Rapier,
      Some("http4s.Vanilla"),
      "Rapier's Ember server (http4s) with IO logic, request log off"
    ),
    ServerSpec(
      "http4s.cats.RapierMulti",
      Side.Rapier,
      rapierHttp4s,
      128,
      false,
      Implementation.Rapier,
      Some("http4s.VanillaMulti"),
      "Rapier's Ember server with IO logic, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "http4s.cats.RapierLog",
      Side.Rapier,
      rapierHttp4s,
      1,
      true,
      Implementation.Rapier,
      Some("http4s.Vanilla"),
      "Rapier's Ember server with IO logic, request log on, writing nothing"
    ),
    ServerSpec(
      "pekko.Vanilla",
      Side.Rapier,
      vanillaPekko,
      1,
      false,
      Implementation.Vanilla,
      None,
      "pekko-http 1.3 routing DSL, default settings"
    ),
    ServerSpec(
      "pekko.VanillaMulti",
      Side.Rapier,
      vanillaPekko,
      128,
      false,
      Implementation.Vanilla,
      None,
      "pekko-http 1.3 routing DSL, 128 route numbers concatenated with ~, tried in turn"
    ),
    ServerSpec(
      "pekko.future.Rapier",
      Side.Rapier,
      rapierPekko,
      1,
      false,
      Implementation.Rapier,
      Some("pekko.Vanilla"),
      "Rapier's pekko-http server with Future logic, request log off"
    ),
    ServerSpec(
      "pekko.future.RapierMulti",
      Side.Rapier,
      rapierPekko,
      128,
      false,
      Implementation.Rapier,
      Some("pekko.VanillaMulti"),
      "Rapier's pekko-http server with Future logic, 128 endpoints per kind, request log off"
    ),
    ServerSpec(
      "pekko.future.RapierLog",
      Side.Rapier,
      rapierPekko,
      1,
      true,
      Implementation.Rapier,
      Some("pekko.Vanilla"),
      "Rapier's pekko-http server with Future logic, request log on, writing nothing"
    ),
    ServerSpec(
      "netty41.Vanilla",
      Side.Tapir,
      vanilla,
      1,
      false,
      Implementation.Vanilla,
      None,
      "the same hand-written handler on Netty 4.1, Tapir's version"
    ),
    ServerSpec(
      "netty41.VanillaMulti",
      Side.Tapir,
      vanilla,
      128,
      false,
      Implementation.Vanilla,
      None,
      "the same hand-written handler on Netty 4.1, 128 routes"
    ),
    ServerSpec(
      "netty.future.Tapir",
      Side.Tapir,
      tapir,
      1,
      false,
      Implementation.Tapir,
      Some("netty41.Vanilla"),
      "Tapir 1.11 Netty Future server, server log off"
    ),
    ServerSpec(
      "netty.future.TapirMulti",
      Side.Tapir,
      tapir,
      128,
      false,
      Implementation.Tapir,
      Some("netty41.VanillaMulti"),
      "Tapir 1.11 Netty Future server, 128 endpoints per kind, server log off"
    ),
    ServerSpec(
      "netty.future.TapirLog",
      Side.Tapir,
      tapir,
      1,
      true,
      Implementation.Tapir,
      Some("netty41.Vanilla"),
      "Tapir 1.11 Netty Future server, default server log, writing nothing"
    ),
    ServerSpec(
      "netty.cats.Tapir",
      Side.Tapir,
      tapirNettyCats,
      1,
      false,
      Implementation.Tapir,
      Some("netty41.Vanilla"),
      "Tapir 1.11 Netty cats-effect server with IO logic, server log off"
    ),
    ServerSpec(
      "netty.cats.TapirMulti",
      Side.Tapir,
      tapirNettyCats,
      128,
      false,
      Implementation.Tapir,
      Some("netty41.VanillaMulti"),
      "Tapir 1.11 Netty cats-effect server, 128 endpoints per kind, server log off"
    ),
    ServerSpec(
      "netty.cats.TapirLog",
      Side.Tapir,
      tapirNettyCats,
      1,
      true,
      Implementation.Tapir,
      Some("netty41.Vanilla"),
      "Tapir 1.11 Netty cats-effect server, default server log, writing nothing"
    ),
    ServerSpec(
      "netty.sync.Tapir",
      Side.Tapir,
      tapirNettySync,
      1,
      false,
      Implementation.Tapir,
      Some("netty41.Vanilla"),
      "Tapir 1.11 Netty server for direct style (virtual threads), server log off",
      java = oxPreview
    ),
    ServerSpec(
      "netty.sync.TapirMulti",
      Side.Tapir,
      tapirNettySync,
      128,
      false,
      Implementation.Tapir,
      Some("netty41.VanillaMulti"),
      "Tapir 1.11 Netty server for direct style, 128 endpoints per kind, server log off",
      java = oxPreview
    ),
    ServerSpec(
      "netty.sync.TapirLog",
      Side.Tapir,
      tapirNettySync,
      1,
      true,
      Implementation.Tapir,
      Some("netty41.Vanilla"),
      "Tapir 1.11 Netty server for direct style, default server log, writing nothing",
      java = oxPreview
    ),
    ServerSpec(
      "vertx4.Vanilla",
      Side.Tapir,
      vanillaVertx,
      1,
      false,
      Implementation.Vanilla,
      None,
      "the same hand-written request handler on Vert.x 4, Tapir's version"
    ),
    ServerSpec(
      "vertx4.VanillaMulti",
      Side.Tapir,
      vanillaVertx,
      128,
      false,
      Implementation.Vanilla,
      None,
      "the same vertx-web Router on Vert.x 4, 128 routes per kind"
    ),
    ServerSpec(
      "vertx.future.Tapir",
      Side.Tapir,
      tapirVertx,
      1,
      false,
      Implementation.Tapir,
      Some("vertx4.Vanilla"),
      "Tapir 1.11 Vert.x Future interpreter on a vertx-web Router, server log off"
    ),
    ServerSpec(
      "vertx.future.TapirMulti",
      Side.Tapir,
      tapirVertx,
      128,
      false,
      Implementation.Tapir,
      Some("vertx4.VanillaMulti"),
      "Tapir 1.11 Vert.x Future interpreter, 128 endpoints per kind, server log off"
    ),
    ServerSpec(
      "vertx.future.TapirLog",
      Side.Tapir,
      tapirVertx,
      1,
      true,
      Implementation.Tapir,
      Some("vertx4.Vanilla"),
      "Tapir 1.11 Vert.x Future interpreter, default server log, writing nothing"
    ),
    ServerSpec(
      "vertx.cats.Tapir",
      Side.Tapir,
      tapirVertxCats,
      1,
      false,
      Implementation.Tapir,
      Some("vertx4.Vanilla"),
      "Tapir 1.11 Vert.x cats-effect interpreter with IO logic on a vertx-web Router, server log off"
    ),
    ServerSpec(
      "vertx.cats.TapirMulti",
      Side.Tapir,
      tapirVertxCats,
      128,
      false,
      Implementation.Tapir,
      Some("vertx4.VanillaMulti"),
      "Tapir 1.11 Vert.x cats-effect interpreter, 128 endpoints per kind, server log off"
    ),
    ServerSpec(
      "vertx.cats.TapirLog",
      Side.Tapir,
      tapirVertxCats,
      1,
      true,
      Implementation.Tapir,
      Some("vertx4.Vanilla"),
      "Tapir 1.11 Vert.x cats-effect interpreter, default server log, writing nothing"
    ),
    ServerSpec(
      "http4s.cats.Tapir",
      Side.Tapir,
      tapirHttp4s,
      1,
      false,
      Implementation.Tapir,
      Some("http4s.Vanilla"),
      "Tapir 1.11 http4s interpreter with IO logic on Ember, server log off"
    ),
    ServerSpec(
      "http4s.cats.TapirMulti",
      Side.Tapir,
      tapirHttp4s,
      128,
      false,
      Implementation.Tapir,
      Some("http4s.VanillaMulti"),
      "Tapir 1.11 http4s interpreter on Ember, 128 endpoints per kind, server log off"
    ),
    ServerSpec(
      "http4s.cats.TapirLog",
      Side.Tapir,
      tapirHttp4s,
      1,
      true,
      Implementation.Tapir,
      Some("http4s.Vanilla"),
      "Tapir 1.11 http4s interpreter on Ember, default server log, writing nothing"
    ),
    ServerSpec(
      "ziohttp.Vanilla",
      Side.ZioHttp,
      vanillaZio,
      1,
      false,
      Implementation.Vanilla,
      None,
      "zio-http 3 with hand-written Routes handlers"
    ),
    ServerSpec(
      "ziohttp.VanillaMulti",
      Side.ZioHttp,
      vanillaZio,
      128,
      false,
      Implementation.Vanilla,
      None,
      "zio-http 3 with hand-written Routes handlers, 128 routes per kind"
    ),
    ServerSpec(
      "ziohttp.Endpoint",
      Side.ZioHttp,
      endpointZio,
      1,
      false,
      Implementation.ZioHttp,
      Some("ziohttp.Vanilla"),
      "zio-http 3's typed Endpoint API, JSON through zio-schema"
    ),
    ServerSpec(
      "ziohttp.EndpointMulti",
      Side.ZioHttp,
      endpointZio,
      128,
      false,
      Implementation.ZioHttp,
      Some("ziohttp.VanillaMulti"),
      "zio-http 3's typed Endpoint API, 128 endpoints per kind"
    )
  ).map(s => s.copy(studies = if s.routes == 1 then studiesOf.getOrElse(s.className, Set.empty) else Set.empty))

  /**
   * Vanilla twins on Rapier's side whose whole stack Tapir's side runs too (the build pins http4s, Ember, cats-effect
   * and fs2 there to Rapier's versions), so that Tapir's server on that backend is compared with the same twin.
   */
  val sharedStacks: Set[String] = Set("http4s.Vanilla", "http4s.VanillaMulti")

  /** The vanilla twin a server is compared with, if it is a library's. */
  def twinOf(name: String): Option[String] = byName(name).flatMap(_.twin)

  /**
   * Rapier against its peers, across backends: each pair is compared on the scenarios both ran (Rapier's throughput over
   * the peer's, see `Summaries.peers`). Tapir on the same backend, and zio-http's Endpoint API, which runs on its own
   * Netty.
   */
  val peers: List[(String, String)] = List(
    "netty.future.Rapier" -> "netty.future.Tapir",
    "netty.future.Rapier" -> "ziohttp.Endpoint",
    "netty.future.RapierMulti" -> "netty.future.TapirMulti",
    "netty.future.RapierMulti" -> "ziohttp.EndpointMulti",
    "netty.zio.Rapier" -> "ziohttp.Endpoint",
    "netty.zio.RapierMulti" -> "ziohttp.EndpointMulti",
    "vertx.future.Rapier" -> "vertx.future.Tapir",
    "vertx.future.RapierMulti" -> "vertx.future.TapirMulti",
    "netty.cats.Rapier" -> "netty.cats.Tapir",
    "netty.cats.RapierMulti" -> "netty.cats.TapirMulti",
    "vertx.cats.Rapier" -> "vertx.cats.Tapir",
    "vertx.cats.RapierMulti" -> "vertx.cats.TapirMulti",
    "netty.sync.Rapier" -> "netty.sync.Tapir",
    "netty.sync.RapierMulti" -> "netty.sync.TapirMulti",
    "http4s.cats.Rapier" -> "http4s.cats.Tapir",
    "http4s.cats.RapierMulti" -> "http4s.cats.TapirMulti"
  )

  def byName(name: String): Option[ServerSpec] = servers.find(_.name == name)

  /** The servers matching any of the patterns, in catalogue order, with the vanilla twins they are compared with. */
  def select(patterns: List[String]): List[ServerSpec] =
    val chosen = servers.filter(s => patterns.exists(p => Glob.matches(p, s.name)))
    val twins = chosen.flatMap(_.twin).flatMap(byName)
    servers.filter(s => chosen.contains(s) || twins.contains(s))
