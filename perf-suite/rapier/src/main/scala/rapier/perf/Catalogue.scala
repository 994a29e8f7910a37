package rapier.perf

/**
 * Which classpath a server runs on: Rapier's side (Netty 4.2, and Vert.x 5 on it), or Tapir's (the Netty 4.1 and
 * Vert.x 4 versions Tapir brings).
 */
enum Side:
  case Rapier, Tapir

/** What a server is, for reports: the bare server, Rapier on it, or the peer library on it. */
enum Implementation:
  case Vanilla, Rapier, Tapir

/**
 * One server of the suite. `twin` names the vanilla server on the same backend and version that its throughput is
 * compared with (none for vanilla servers themselves).
 */
final case class ServerSpec(
    name: String,
    side: Side,
    className: String,
    routes: Int,
    requestLog: Boolean,
    implementation: Implementation,
    twin: Option[String],
    description: String
):
  def isVanilla: Boolean = twin.isEmpty

/** The servers the suite knows, as data: adding a backend means adding entries here (and its server classes). */
object Catalogue:
  private val vanilla = "rapier.perf.vanilla.VanillaNettyServer"
  private val rapier = "rapier.perf.servers.RapierNettyServer"
  private val tapir = "rapier.perf.tapir.TapirNettyServer"
  private val vanillaVertx = "rapier.perf.vanilla.VanillaVertxServer"
  private val rapierVertx = "rapier.perf.servers.RapierVertxServer"
  private val tapirVertx = "rapier.perf.tapir.TapirVertxServer"

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
    )
  )

  def byName(name: String): Option[ServerSpec] = servers.find(_.name == name)

  /** The servers matching any of the patterns, in catalogue order, with the vanilla twins they are compared with. */
  def select(patterns: List[String]): List[ServerSpec] =
    val chosen = servers.filter(s => patterns.exists(p => Glob.matches(p, s.name)))
    val twins = chosen.flatMap(_.twin).flatMap(byName)
    servers.filter(s => chosen.contains(s) || twins.contains(s))
