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
 * and `/sse/ts`); `buffered`, that it serves the buffered routes only, not the streaming ones; `compression`, that it
 * is started with its compression on (and serves `GET /pathJson{n}`); `statics`, that it serves the static files;
 * `tls`, that it serves HTTPS only, with the suite's key ([[rapier.perf.common.TlsFiles]]); `http2`, that it serves
 * h2c beside HTTP/1.1.
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
    studies: Set[Study] = Set.empty,
    buffered: Boolean = false,
    compression: Boolean = false,
    statics: Boolean = false,
    tls: Boolean = false,
    http2: Boolean = false
):
  def isVanilla: Boolean = twin.isEmpty

  /**
   * Whether it serves the streaming routes (`POST /pathStream{n}`, `GET /pathFile{n}`): the servers on Rapier's side,
   * vanilla and Rapier alike, but for those marked `buffered`. Peers are compared on the routes every server has.
   */
  def streams: Boolean = side == Side.Rapier && !buffered

/** The servers the suite knows, as data: adding a backend means adding entries here (and its server classes). */
object Catalogue:
  private val vanilla = "rapier.perf.vanilla.VanillaNettyServer"
  private val vanillaSync = "rapier.perf.vanilla.VanillaNettySyncServer"
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

  private val rapierCirce = "rapier.perf.servers.RapierNettyCirceServer"
  private val rapierMetrics = "rapier.perf.servers.RapierNettyMetricsServer"
  private val rapierTracing = "rapier.perf.servers.RapierNettyTracingServer"
  private val rapierNettyCatsTracing = "rapier.perf.servers.RapierNettyCatsTracingServer"
  private val rapierNettyZioTracing = "rapier.perf.servers.RapierNettyZioTracingServer"
  private val tapirMetrics = "rapier.perf.tapir.TapirNettyMetricsServer"

  /** The servers with static files: each backend's twin and Rapier on it. */
  private val staticServers = Set(
    "netty.Vanilla",
    "netty.future.Rapier",
    "vertx.Vanilla",
    "vertx.future.Rapier",
    "http4s.Vanilla",
    "http4s.cats.Rapier",
    "pekko.Vanilla",
    "pekko.future.Rapier"
  )

  /**
   * A twin and Rapier on one backend, both serving HTTPS as that backend's TLS does it, each with the provider named in
   * its description.
   */
  private def overTls(backend: String, rapier: String, twinClass: String, rapierClass: String, how: (String, String)) =
    val twin = s"$backend.VanillaTls"
    List(
      ServerSpec(twin, Side.Rapier, twinClass, 1, false, Implementation.Vanilla, None, how._1, tls = true),
      ServerSpec(rapier, Side.Rapier, rapierClass, 1, false, Implementation.Rapier, Some(twin), how._2, tls = true)
    )

  /** A server with one route of each kind and the log off, observed (metrics or spans) on top of its library. */
  private def observed(name: String, side: Side, className: String, twin: String, what: String) =
    val implementation = if side == Side.Tapir then Implementation.Tapir else Implementation.Rapier
    ServerSpec(name, side, className, 1, false, implementation, Some(twin), what)

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

  /** A vanilla server (`name`, one route of each kind) and its 128-route variant (`nameMulti`). */
  private def vanillaPair(
      name: String,
      side: Side,
      className: String,
      what: String,
      whatMulti: String
  ): List[ServerSpec] = List(
    ServerSpec(name, side, className, 1, false, Implementation.Vanilla, None, what),
    ServerSpec(s"${name}Multi", side, className, 128, false, Implementation.Vanilla, None, whatMulti)
  )

  /**
   * A library's servers for one backend and style, against the vanilla `twin`: `name` with one route of each kind and
   * its request log off, `nameMulti` with 128 (against the twin's 128), `nameLog` with the log on, writing nothing.
   * `what` describes all three, `first` the first when it says more.
   */
  private final class Library(implementation: Implementation, side: Side, logOff: String, logOn: String):
    def apply(
        name: String,
        className: String,
        twin: String,
        what: String,
        first: String = "",
        java: JavaNeed = JavaNeed.Baseline
    ): List[ServerSpec] =
      def spec(suffix: String, routes: Int, log: Boolean, twinName: String, description: String) =
        ServerSpec(s"$name$suffix", side, className, routes, log, implementation, Some(twinName), description, java)
      List(
        spec("", 1, false, twin, s"${if first.isEmpty then what else first}, $logOff"),
        spec("Multi", 128, false, s"${twin}Multi", s"$what, 128 endpoints per kind, $logOff"),
        spec("Log", 1, true, twin, s"$what, $logOn")
      )

  private val rapierOn =
    Library(Implementation.Rapier, Side.Rapier, "request log off", "request log on, writing nothing")
  private val tapirOn =
    Library(Implementation.Tapir, Side.Tapir, "server log off", "default server log, writing nothing")

  val servers: List[ServerSpec] = (
    vanillaPair(
      "netty.Vanilla",
      Side.Rapier,
      vanilla,
      "hand-written Netty 4.2 handler",
      "hand-written Netty 4.2 handler, 128 routes in a hash map"
    ) ++
      rapierOn("netty.future.Rapier", rapier, "netty.Vanilla", "Rapier on Netty 4.2") ++
      vanillaPair(
        "vertx.Vanilla",
        Side.Rapier,
        vanillaVertx,
        "hand-written Vert.x 5 request handler",
        "Vert.x 5 with a vertx-web Router, 128 routes per kind"
      ) ++
      rapierOn("vertx.future.Rapier", rapierVertx, "vertx.Vanilla", "Rapier on Vert.x 5") ++
      rapierOn(
        "netty.cats.Rapier",
        rapierNettyCats,
        "netty.Vanilla",
        "Rapier on Netty 4.2 with IO logic",
        first = "Rapier on Netty 4.2 with cats-effect IO logic"
      ) ++
      rapierOn("netty.zio.Rapier", rapierNettyZio, "netty.Vanilla", "Rapier on Netty 4.2 with ZIO logic") ++
      rapierOn(
        "netty.sync.Rapier",
        rapierNettySync,
        "netty.Vanilla",
        "Rapier on Netty 4.2 with direct-style logic",
        first = "Rapier on Netty 4.2 with direct-style logic, a virtual thread per request",
        java = virtualThreads
      ) ++
      List(
        ServerSpec(
          "netty.sync.Vanilla",
          Side.Rapier,
          vanillaSync,
          1,
          false,
          Implementation.Vanilla,
          Some("netty.Vanilla"),
          "hand-written Netty 4.2 handler answering each request on a virtual thread of its own",
          java = virtualThreads,
          buffered = true
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
        )
      ) ++
      rapierOn(
        "vertx.cats.Rapier",
        rapierVertxCats,
        "vertx.Vanilla",
        "Rapier on Vert.x 5 with IO logic",
        first = "Rapier on Vert.x 5 with cats-effect IO logic"
      ) ++
      rapierOn("vertx.zio.Rapier", rapierVertxZio, "vertx.Vanilla", "Rapier on Vert.x 5 with ZIO logic") ++
      vanillaPair(
        "http4s.Vanilla",
        Side.Rapier,
        vanillaHttp4s,
        "http4s 0.23 routes written with its DSL, on Ember",
        "http4s 0.23 DSL routes on Ember, 128 route numbers combined with <+>, tried in turn"
      ) ++
      rapierOn(
        "http4s.cats.Rapier",
        rapierHttp4s,
        "http4s.Vanilla",
        "Rapier's Ember server with IO logic",
        first = "Rapier's Ember server (http4s) with IO logic"
      ) ++
      vanillaPair(
        "pekko.Vanilla",
        Side.Rapier,
        vanillaPekko,
        "pekko-http 1.3 routing DSL, default settings",
        "pekko-http 1.3 routing DSL, 128 route numbers concatenated with ~, tried in turn"
      ) ++
      rapierOn("pekko.future.Rapier", rapierPekko, "pekko.Vanilla", "Rapier's pekko-http server with Future logic") ++
      List(
        ServerSpec(
          "netty.VanillaH2",
          Side.Rapier,
          vanilla,
          1,
          false,
          Implementation.Vanilla,
          None,
          "hand-written Netty 4.2 handler behind Netty's h2c upgrade handler and HTTP/2-to-HTTP/1.1 stream codec",
          http2 = true
        ),
        ServerSpec(
          "netty.future.RapierH2",
          Side.Rapier,
          rapier,
          1,
          false,
          Implementation.Rapier,
          Some("netty.VanillaH2"),
          "Rapier on Netty 4.2 with HTTP/2 on (h2c), request log off",
          http2 = true
        ),
        ServerSpec(
          "netty.VanillaH2Tls",
          Side.Rapier,
          vanilla,
          1,
          false,
          Implementation.Vanilla,
          None,
          "hand-written Netty 4.2 handler behind Netty's SslHandler (OpenSSL's provider when tcnative loads), h2 by " +
            "ALPN to its frame codec and HTTP/2-to-HTTP/1.1 stream codec",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "netty.future.RapierH2Tls",
          Side.Rapier,
          rapier,
          1,
          false,
          Implementation.Rapier,
          Some("netty.VanillaH2Tls"),
          "Rapier on Netty 4.2 with its TLS and HTTP/2 (Tls.pem, h2 by ALPN, Http2()), request log off",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "vertx.VanillaH2Tls",
          Side.Rapier,
          vanillaVertx,
          1,
          false,
          Implementation.Vanilla,
          None,
          "hand-written Vert.x 5 request handler with Vert.x's TLS and HTTP/2 (h2 by ALPN, its default settings)",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "vertx.future.RapierH2Tls",
          Side.Rapier,
          rapierVertx,
          1,
          false,
          Implementation.Rapier,
          Some("vertx.VanillaH2Tls"),
          "Rapier on Vert.x 5 with its TLS and HTTP/2 (Tls.pem, h2 by ALPN, Http2()), request log off",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "http4s.VanillaH2",
          Side.Rapier,
          vanillaHttp4s,
          1,
          false,
          Implementation.Vanilla,
          None,
          "http4s 0.23 DSL routes on Ember withHttp2 (h2c by prior knowledge, Ember's default settings)",
          http2 = true
        ),
        ServerSpec(
          "http4s.cats.RapierH2",
          Side.Rapier,
          rapierHttp4s,
          1,
          false,
          Implementation.Rapier,
          Some("http4s.VanillaH2"),
          "Rapier's Ember server with IO logic and HTTP/2 on (h2c, Http2()), request log off",
          http2 = true
        ),
        ServerSpec(
          "pekko.VanillaH2",
          Side.Rapier,
          vanillaPekko,
          1,
          false,
          Implementation.Vanilla,
          None,
          "pekko-http 1.3 routing DSL with enable-http2 (h2c by prior knowledge, pekko-http's default settings)",
          http2 = true
        ),
        ServerSpec(
          "pekko.future.RapierH2",
          Side.Rapier,
          rapierPekko,
          1,
          false,
          Implementation.Rapier,
          Some("pekko.VanillaH2"),
          "Rapier's pekko-http server with Future logic and HTTP/2 on (h2c, Http2()), log off",
          http2 = true
        ),
        ServerSpec(
          "http4s.VanillaH2Tls",
          Side.Rapier,
          vanillaHttp4s,
          1,
          false,
          Implementation.Vanilla,
          None,
          "http4s 0.23 DSL routes on Ember withTLS and withHttp2 (h2 by ALPN, Ember's default settings)",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "http4s.cats.RapierH2Tls",
          Side.Rapier,
          rapierHttp4s,
          1,
          false,
          Implementation.Rapier,
          Some("http4s.VanillaH2Tls"),
          "Rapier's Ember server with IO logic, its TLS and HTTP/2 (Tls.pem, h2 by ALPN, Http2()), request log off",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "pekko.VanillaH2Tls",
          Side.Rapier,
          vanillaPekko,
          1,
          false,
          Implementation.Vanilla,
          None,
          "pekko-http 1.3 routing DSL with enableHttps and enable-http2 (h2 by ALPN, pekko-http's default settings)",
          tls = true,
          http2 = true
        ),
        ServerSpec(
          "pekko.future.RapierH2Tls",
          Side.Rapier,
          rapierPekko,
          1,
          false,
          Implementation.Rapier,
          Some("pekko.VanillaH2Tls"),
          "Rapier's pekko-http server with Future logic, its TLS and HTTP/2 (Tls.pem, h2 by ALPN, Http2()), log off",
          tls = true,
          http2 = true
        )
      ) ++
      overTls(
        "netty",
        "netty.future.RapierTls",
        vanilla,
        rapier,
        "hand-written Netty 4.2 handler behind Netty's SslHandler, OpenSSL's provider (tcnative) when it loads" ->
          "Rapier on Netty 4.2 with its TLS (Tls.pem), OpenSSL's provider (tcnative) when it loads, request log off"
      ) ++
      overTls(
        "vertx",
        "vertx.future.RapierTls",
        vanillaVertx,
        rapierVertx,
        "hand-written Vert.x 5 request handler with Vert.x's TLS (PEM key, its default JDK engine)" ->
          "Rapier on Vert.x 5 with its TLS (Tls.pem, Vert.x's default JDK engine), request log off"
      ) ++
      overTls(
        "http4s",
        "http4s.cats.RapierTls",
        vanillaHttp4s,
        rapierHttp4s,
        "http4s 0.23 DSL routes on Ember withTLS (fs2's TLSContext over the JDK's SSLEngine)" ->
          "Rapier's Ember server with IO logic and its TLS (Tls.pem, fs2 over the JDK's SSLEngine), request log off"
      ) ++
      overTls(
        "pekko",
        "pekko.future.RapierTls",
        vanillaPekko,
        rapierPekko,
        "pekko-http 1.3 routing DSL with enableHttps (the JDK's SSLEngine)" ->
          "Rapier's pekko-http server with its TLS (Tls.pem, pekko's TLS stage over the JDK's SSLEngine), log off"
      ) ++
      List(
        ServerSpec(
          "netty.VanillaGzip",
          Side.Rapier,
          vanilla,
          1,
          false,
          Implementation.Vanilla,
          None,
          "hand-written Netty 4.2 handler with Netty's HttpContentCompressor (gzip and deflate from 1 KiB)",
          compression = true
        ),
        ServerSpec(
          "netty.future.RapierGzip",
          Side.Rapier,
          rapier,
          1,
          false,
          Implementation.Rapier,
          Some("netty.VanillaGzip"),
          "Rapier on Netty 4.2 with its compression (gzip and deflate from 1 KiB), request log off",
          compression = true
        ),
        ServerSpec(
          "vertx.VanillaGzip",
          Side.Rapier,
          vanillaVertx,
          1,
          false,
          Implementation.Vanilla,
          None,
          "hand-written Vert.x 5 request handler with Vert.x's compression (gzip and deflate from 1 KiB)",
          compression = true
        ),
        ServerSpec(
          "vertx.future.RapierGzip",
          Side.Rapier,
          rapierVertx,
          1,
          false,
          Implementation.Rapier,
          Some("vertx.VanillaGzip"),
          "Rapier on Vert.x 5 with its compression (gzip and deflate from 1 KiB), request log off",
          compression = true
        ),
        ServerSpec(
          "http4s.VanillaGzip",
          Side.Rapier,
          vanillaHttp4s,
          1,
          false,
          Implementation.Vanilla,
          None,
          "http4s 0.23 DSL routes on Ember with http4s's GZip middleware",
          compression = true
        ),
        ServerSpec(
          "http4s.cats.RapierGzip",
          Side.Rapier,
          rapierHttp4s,
          1,
          false,
          Implementation.Rapier,
          Some("http4s.VanillaGzip"),
          "Rapier's Ember server with IO logic and its compression (gzip and deflate from 1 KiB), request log off",
          compression = true
        ),
        ServerSpec(
          "pekko.VanillaGzip",
          Side.Rapier,
          vanillaPekko,
          1,
          false,
          Implementation.Vanilla,
          None,
          "pekko-http 1.3 routing DSL with its encodeResponse directive",
          compression = true
        ),
        ServerSpec(
          "pekko.future.RapierGzip",
          Side.Rapier,
          rapierPekko,
          1,
          false,
          Implementation.Rapier,
          Some("pekko.VanillaGzip"),
          "Rapier's pekko-http server with its compression (gzip and deflate from 1 KiB), request log off",
          compression = true
        ),
        ServerSpec(
          "netty.future.RapierCirce",
          Side.Rapier,
          rapierCirce,
          1,
          false,
          Implementation.Rapier,
          Some("netty.Vanilla"),
          "Rapier on Netty 4.2 with its JSON read and written by circe (rapier-json-circe), request log off"
        ),
        observed(
          "netty.future.RapierMetrics",
          Side.Rapier,
          rapierMetrics,
          "netty.Vanilla",
          "Rapier on Netty 4.2 with Prometheus metrics (rapier-metrics-prometheus), request log off"
        ),
        observed(
          "netty.future.RapierTracing",
          Side.Rapier,
          rapierTracing,
          "netty.Vanilla",
          "Rapier on Netty 4.2 with OpenTelemetry spans (SDK, every request sampled, batch export), request log off"
        ),
        observed(
          "netty.cats.RapierTracing",
          Side.Rapier,
          rapierNettyCatsTracing,
          "netty.Vanilla",
          "Rapier on Netty 4.2 with IO logic and OpenTelemetry spans, current while the IO runs"
        ),
        observed(
          "netty.zio.RapierTracing",
          Side.Rapier,
          rapierNettyZioTracing,
          "netty.Vanilla",
          "Rapier on Netty 4.2 with ZIO logic and OpenTelemetry spans, current while the effect runs"
        )
      ) ++
      vanillaPair(
        "netty41.Vanilla",
        Side.Tapir,
        vanilla,
        "the same hand-written handler on Netty 4.1, Tapir's version",
        "the same hand-written handler on Netty 4.1, 128 routes"
      ) ++
      tapirOn("netty.future.Tapir", tapir, "netty41.Vanilla", "Tapir 1.11 Netty Future server") ++
      List(
        ServerSpec(
          "netty41.VanillaTls",
          Side.Tapir,
          vanilla,
          1,
          false,
          Implementation.Vanilla,
          None,
          "the same hand-written handler on Netty 4.1, Tapir's version, behind Netty's SslHandler",
          tls = true
        ),
        ServerSpec(
          "netty.future.TapirTls",
          Side.Tapir,
          tapir,
          1,
          false,
          Implementation.Tapir,
          Some("netty41.VanillaTls"),
          "Tapir 1.11 Netty Future server with an SslContext in its NettyConfig (the twin's provider), server log off",
          tls = true
        ),
        observed(
          "netty.future.TapirMetrics",
          Side.Tapir,
          tapirMetrics,
          "netty41.Vanilla",
          "Tapir 1.11 Netty Future server with its Prometheus metrics (tapir-prometheus-metrics), server log off"
        )
      ) ++
      tapirOn(
        "netty.cats.Tapir",
        tapirNettyCats,
        "netty41.Vanilla",
        "Tapir 1.11 Netty cats-effect server",
        first = "Tapir 1.11 Netty cats-effect server with IO logic"
      ) ++
      tapirOn(
        "netty.sync.Tapir",
        tapirNettySync,
        "netty41.Vanilla",
        "Tapir 1.11 Netty server for direct style",
        first = "Tapir 1.11 Netty server for direct style (virtual threads)",
        java = oxPreview
      ) ++
      vanillaPair(
        "vertx4.Vanilla",
        Side.Tapir,
        vanillaVertx,
        "the same hand-written request handler on Vert.x 4, Tapir's version",
        "the same vertx-web Router on Vert.x 4, 128 routes per kind"
      ) ++
      tapirOn(
        "vertx.future.Tapir",
        tapirVertx,
        "vertx4.Vanilla",
        "Tapir 1.11 Vert.x Future interpreter",
        first = "Tapir 1.11 Vert.x Future interpreter on a vertx-web Router"
      ) ++
      tapirOn(
        "vertx.cats.Tapir",
        tapirVertxCats,
        "vertx4.Vanilla",
        "Tapir 1.11 Vert.x cats-effect interpreter",
        first = "Tapir 1.11 Vert.x cats-effect interpreter with IO logic on a vertx-web Router"
      ) ++
      tapirOn(
        "http4s.cats.Tapir",
        tapirHttp4s,
        "http4s.Vanilla",
        "Tapir 1.11 http4s interpreter on Ember",
        first = "Tapir 1.11 http4s interpreter with IO logic on Ember"
      ) ++
      vanillaPair(
        "ziohttp.Vanilla",
        Side.ZioHttp,
        vanillaZio,
        "zio-http 3 with hand-written Routes handlers",
        "zio-http 3 with hand-written Routes handlers, 128 routes per kind"
      ) ++
      List(
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
      )
  ).map(s =>
    s.copy(
      studies = if s.routes == 1 then studiesOf.getOrElse(s.className, Set.empty) else Set.empty,
      statics = staticServers.contains(s.name)
    )
  )

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
   * Netty; and direct style against the same style written by hand (`netty.sync.Vanilla`, itself compared with the
   * bare handler), which tells Rapier's cost from the style's.
   */
  val peers: List[(String, String)] = List(
    "netty.future.Rapier" -> "netty.future.Tapir",
    "netty.future.Rapier" -> "ziohttp.Endpoint",
    "netty.future.RapierMetrics" -> "netty.future.TapirMetrics",
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
    "netty.sync.Rapier" -> "netty.sync.Vanilla",
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
