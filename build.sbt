// Rapier: typed HTTP endpoints, served with next to no overhead.

Publishing.settings
Settings.build

import Settings._

// `./sbt test` builds and tests the library: its modules, the fuzz targets and the examples. The performance suite
// and its peers (Tapir, zio-http), with the JMH benchmarks, are the `suite` aggregate: built by ./perf, tested by
// `./sbt suite/test`, so that the library's tests never wait for a peer to compile.
lazy val root = (project in file("."))
  .aggregate(
    core,
    server,
    jsonJsoniter,
    jsonCirce,
    jsonZio,
    nettyHttp,
    netty,
    vertx,
    nettySync,
    catsEffect,
    nettyCats,
    vertxCats,
    zioEffect,
    nettyZio,
    vertxZio,
    http4s,
    pekkoHttp,
    openapi,
    swaggerUi,
    client,
    metricsPrometheus,
    metricsOpenTelemetry,
    tracingOpenTelemetry,
    testkit,
    fuzz,
    examples
  )
  .settings(name := "rapier", unpublished)

lazy val suite = (project in file("perf-suite"))
  .aggregate(bench, perfCommon, perf, perfTapir, perfZio)
  .settings(name := "rapier-suite", unpublished)

lazy val core = (project in file("core"))
  .settings(testSettings)
  .settings(
    name := "rapier-core",
    libraryDependencies += "org.scalameta" %% "munit-scalacheck" % Versions.munitScalacheck % Test
  )

lazy val server = (project in file("server"))
  .dependsOn(core)
  .settings(testSettings)
  .settings(
    name := "rapier-server",
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-api" % Versions.slf4j,
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
    )
  )

// JSON integrations, under json/; their tests share one model (json/shared-tests).
lazy val jsonJsoniter = (project in file("json/jsoniter"))
  .dependsOn(core, server % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-json-jsoniter",
    Test / unmanagedSourceDirectories += (ThisBuild / baseDirectory).value / "json" / "shared-tests",
    libraryDependencies ++= Seq(
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-core" % Versions.jsoniter,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Test,
      "org.scalameta" %% "munit-scalacheck" % Versions.munitScalacheck % Test
    )
  )

lazy val jsonCirce = (project in file("json/circe"))
  .dependsOn(core, server % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-json-circe",
    Test / unmanagedSourceDirectories += (ThisBuild / baseDirectory).value / "json" / "shared-tests",
    libraryDependencies ++= Seq(
      "io.circe" %% "circe-core" % Versions.circe,
      "io.circe" %% "circe-jawn" % Versions.circe,
      "org.scalameta" %% "munit-scalacheck" % Versions.munitScalacheck % Test
    )
  )

lazy val jsonZio = (project in file("json/zio-json"))
  .dependsOn(core, server % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-json-zio",
    Test / unmanagedSourceDirectories += (ThisBuild / baseDirectory).value / "json" / "shared-tests",
    libraryDependencies ++= Seq(
      "dev.zio" %% "zio-json" % Versions.zioJson,
      "org.scalameta" %% "munit-scalacheck" % Versions.munitScalacheck % Test
    )
  )

// Server backends, under backends/. nettyHttp is what the backends built on Netty's HTTP codec share (Netty's and
// Vert.x's): the strict reading of a request head that Netty's decoder leaves out, how a refused one is marked, and
// the idle watch of an HTTP/2 connection.
lazy val nettyHttp = (project in file("backends/netty-http"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-http",
    libraryDependencies ++= Seq(
      "io.netty" % "netty-codec-http" % Versions.netty,
      "io.netty" % "netty-codec-http2" % Versions.netty
    )
  )

lazy val netty = (project in file("backends/netty"))
  .dependsOn(server, nettyHttp, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty",
    libraryDependencies ++= Seq(
      "io.netty" % "netty-codec-http" % Versions.netty,
      "io.netty" % "netty-codec-http2" % Versions.netty,
      "io.netty" % "netty-handler" % Versions.netty,
      "io.netty" % "netty-transport-native-epoll" % Versions.netty classifier "linux-x86_64",
      "io.netty" % "netty-transport-native-epoll" % Versions.netty classifier "linux-aarch_64",
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test,
      // The kit's TLS tests run on OpenSSL's provider here, on the JDK's in the other Netty flavours
      "io.netty" % "netty-tcnative-boringssl-static" % Versions.tcnative % Test classifier "linux-x86_64"
    )
  )

lazy val vertx = (project in file("backends/vertx"))
  .dependsOn(server, nettyHttp, testkit % Test)
  .settings(testSettings)
  .settings(
    nettyPin,
    name := "rapier-vertx",
    libraryDependencies ++= Seq(
      "io.vertx" % "vertx-core" % Versions.vertx,
      // Only for VertxServerInterpreter.routeHandler: applications that mount Rapier on a Router bring their own.
      "io.vertx" % "vertx-web" % Versions.vertxWeb % Provided,
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
    )
  )

// Direct style on Netty, one virtual thread per request: JDK 21's, so its tests run on a JDK 21 or newer that the
// build finds (Jdk21.home), and skip themselves, saying why, where there is none. The module itself builds for 17 like
// the rest, and says at start what it needs.
lazy val nettySync = (project in file("backends/netty-sync"))
  .dependsOn(netty, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-sync",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test,
    Test / javaHome := Jdk21.home,
    // VirtualThreadStart.OnLoop's scheduler is reached in java.lang, opened for its tests
    Test / javaOptions += "--add-opens=java.base/java.lang=ALL-UNNAMED"
  )

// Effect modules, under effects/: logic in an effect other than Future, bodies as that effect's streams. Each backend
// serves them in a module of its own (backends/netty-cats, ...), so that a Future application brings no effect library.
lazy val catsEffect = (project in file("effects/cats"))
  .dependsOn(server, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-cats",
    libraryDependencies ++= Seq(
      "org.typelevel" %% "cats-effect" % Versions.catsEffect,
      "co.fs2" %% "fs2-core" % Versions.fs2
    )
  )

lazy val nettyCats = (project in file("backends/netty-cats"))
  .dependsOn(netty, catsEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-cats",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
  )

lazy val vertxCats = (project in file("backends/vertx-cats"))
  .dependsOn(vertx % "compile->compile;test->test", catsEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    nettyPin,
    name := "rapier-vertx-cats",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
  )

lazy val zioEffect = (project in file("effects/zio"))
  .dependsOn(server, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-zio",
    libraryDependencies ++= Seq(
      "dev.zio" %% "zio" % Versions.zio,
      "dev.zio" %% "zio-streams" % Versions.zio
    )
  )

lazy val nettyZio = (project in file("backends/netty-zio"))
  .dependsOn(netty, zioEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-zio",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
  )

lazy val vertxZio = (project in file("backends/vertx-zio"))
  .dependsOn(vertx % "compile->compile;test->test", zioEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    nettyPin,
    name := "rapier-vertx-zio",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
  )

// http4s: endpoints as HttpRoutes[F] beside an application's own, or a standalone Ember server; bodies as the fs2
// streams http4s has.
lazy val http4s = (project in file("backends/http4s"))
  .dependsOn(catsEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-http4s",
    libraryDependencies ++= Seq(
      "org.http4s" %% "http4s-ember-server" % Versions.http4s,
      "org.http4s" %% "http4s-dsl" % Versions.http4s % Test,
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
    )
  )

// pekko-http: endpoints as a Route beside an application's own directives, or a standalone server; bodies as pekko
// Sources.
lazy val pekkoHttp = (project in file("backends/pekko-http"))
  .dependsOn(server, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-pekko-http",
    libraryDependencies ++= Seq(
      "org.apache.pekko" %% "pekko-http" % Versions.pekkoHttp,
      "org.apache.pekko" %% "pekko-stream" % Versions.pekko,
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
    )
  )

// Documentation interpreters, under apidocs/.
// The client interpreter, on the JDK's HttpClient: an endpoint called as a function.
lazy val client = (project in file("client"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-client",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
  )

lazy val openapi = (project in file("apidocs/openapi"))
  .dependsOn(core, jsonJsoniter % Test, server % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-openapi",
    libraryDependencies ++= Seq(
      "com.fasterxml.jackson.core" % "jackson-core" % Versions.jackson,
      "com.fasterxml.jackson.dataformat" % "jackson-dataformat-yaml" % Versions.jackson,
      "io.swagger.parser.v3" % "swagger-parser" % Versions.swaggerParser % Test,
      "org.slf4j" % "slf4j-nop" % Versions.slf4j % Test,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Test
    )
  )

// Swagger UI's static files come from the webjar, served by ordinary endpoints on any backend.
lazy val swaggerUi = (project in file("apidocs/swagger-ui"))
  .dependsOn(openapi, server, netty % Test, vertx % Test, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-swagger-ui",
    libraryDependencies ++= Seq(
      "org.webjars" % "swagger-ui" % Versions.swaggerUi,
      "org.slf4j" % "slf4j-nop" % Versions.slf4j % Test
    ),
    nettyPin,
    Settings.webjarVersionSource
  )

// Prometheus metrics of a server's requests: an interceptor and the endpoint that serves them.
lazy val metricsPrometheus = (project in file("metrics/prometheus"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-metrics-prometheus",
    libraryDependencies ++= Seq(
      "io.prometheus" % "prometheus-metrics-core" % Versions.prometheus,
      "io.prometheus" % "prometheus-metrics-exposition-textformats" % Versions.prometheus
    )
  )

// OpenTelemetry metrics of a server's requests, named by the HTTP semantic conventions.
lazy val metricsOpenTelemetry = (project in file("metrics/opentelemetry"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-metrics-opentelemetry",
    libraryDependencies += "io.opentelemetry" % "opentelemetry-api" % Versions.openTelemetry
  )

// OpenTelemetry server spans, current while the logic runs, in any of the logic styles.
lazy val tracingOpenTelemetry = (project in file("tracing/opentelemetry"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-tracing-opentelemetry",
    libraryDependencies += "io.opentelemetry" % "opentelemetry-api" % Versions.openTelemetry
  )

lazy val testkit = (project in file("testkit"))
  .dependsOn(server, client, jsonJsoniter, jsonCirce, jsonZio, metricsPrometheus, metricsOpenTelemetry)
  .dependsOn(tracingOpenTelemetry)
  .settings(testSettings)
  .settings(
    name := "rapier-testkit",
    libraryDependencies ++= Seq(
      munit,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Provided,
      "io.netty" % "netty-common" % Versions.netty,
      "io.netty" % "netty-buffer" % Versions.netty,
      "io.opentelemetry" % "opentelemetry-sdk-testing" % Versions.openTelemetry,
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test
    )
  )

// Fuzz tests (Jazzer, on JUnit 5): each target fuzzes in its own JVM, for JAZZER_MAX_DURATION (30 s unless set).
lazy val fuzz = (project in file("fuzz"))
  .dependsOn(netty, jsonJsoniter, testkit)
  .settings(testSettings)
  .settings(
    name := "rapier-fuzz",
    unpublished,
    libraryDependencies ++= Seq(
      "com.code-intelligence" % "jazzer-junit" % Versions.jazzer % Test,
      "com.github.sbt.junit" % "jupiter-interface" % Versions.jupiterInterface % Test,
      "org.slf4j" % "slf4j-simple" % Versions.slf4j % Test,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Provided
    ),
    Fuzz.settings
  )

lazy val examples = (project in file("examples"))
  .dependsOn(
    netty,
    vertx,
    nettyCats,
    nettyZio,
    nettySync,
    jsonJsoniter,
    jsonCirce,
    openapi,
    swaggerUi,
    metricsPrometheus
  )
  .dependsOn(client)
  .dependsOn(metricsOpenTelemetry, tracingOpenTelemetry)
  .dependsOn(testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-examples",
    unpublished,
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-simple" % Versions.slf4j,
      "io.vertx" % "vertx-web" % Versions.vertxWeb,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Provided,
      // The books API's document is checked by the validator the openapi module's tests use.
      "io.swagger.parser.v3" % "swagger-parser" % Versions.swaggerParser % Test
    ),
    nettyPin,
    run / fork := true,
    run / connectInput := true,
    Compile / run / mainClass := Some("rapier.examples.runHelloWorld")
  )

lazy val bench = (project in file("bench"))
  .dependsOn(netty, nettyCats, vertx, http4s, jsonJsoniter, testkit)
  .enablePlugins(JmhPlugin)
  .settings(
    name := "rapier-bench",
    unpublished,
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-nop" % Versions.slf4j,
      "org.http4s" %% "http4s-dsl" % Versions.http4s,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Provided
    )
  )

// The performance suite. perfCommon is the JDK code every server side shares (the launcher, the control port, the
// sampler and the profiler's hooks); perf holds the runner and the servers on Rapier's Netty and Vert.x; perfTapir holds
// Tapir's servers on the Netty and Vert.x versions Tapir brings, with vanilla twins on those same versions; perfZio holds
// zio-http's servers on the Netty zio-http brings. The vanilla Netty and Vert.x servers are one source each, compiled on
// Rapier's and Tapir's sides; the JSON codecs of the vanilla servers are compiled on all three.
lazy val perfCommon = (project in file("perf-suite/common"))
  .settings(testSettings)
  .settings(
    name := "rapier-perf-common",
    unpublished,
    libraryDependencies ++= Seq(
      "tools.profiler" % "async-profiler" % Versions.asyncProfiler,
      "org.hdrhistogram" % "HdrHistogram" % Versions.hdrHistogram
    )
  )

lazy val perf = (project in file("perf-suite/rapier"))
  .dependsOn(
    perfCommon,
    netty,
    vertx,
    nettyCats,
    vertxCats,
    nettyZio,
    vertxZio,
    nettySync,
    http4s,
    pekkoHttp,
    jsonJsoniter,
    jsonCirce,
    metricsPrometheus,
    tracingOpenTelemetry,
    testkit % Test
  )
  .settings(testSettings)
  .settings(
    name := "rapier-perf",
    unpublished,
    PerfSuite.vanillaSources,
    PerfSuite.sources("vanilla-http4s", "vanilla-pekko"),
    nettyPin,
    PerfSuite.testSettings(perfTapir, perfZio),
    libraryDependencies ++= Seq(
      "io.vertx" % "vertx-web" % Versions.vertxWeb,
      "org.http4s" %% "http4s-dsl" % Versions.http4s,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-core" % Versions.jsoniter,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Provided,
      "io.opentelemetry" % "opentelemetry-sdk" % Versions.openTelemetry,
      "org.slf4j" % "slf4j-nop" % Versions.slf4j,
      // OpenSSL's provider for the TLS scenarios, taken by the Netty twin and Rapier's Netty server alike
      "io.netty" % "netty-tcnative-boringssl-static" % Versions.tcnative classifier "linux-x86_64"
    )
  )

lazy val perfTapir = (project in file("perf-suite/tapir"))
  .dependsOn(perfCommon)
  .settings(
    name := "rapier-perf-tapir",
    unpublished,
    PerfSuite.vanillaSources,
    PerfSuite.sources("vanilla-http4s"),
    // Tapir's own choices, not Rapier's: its Netty (4.1), its Vert.x (4.5) and its jsoniter; for http4s, the stack
    // Rapier's side runs.
    libraryDependencies ++= Seq(
      "com.softwaremill.sttp.tapir" %% "tapir-netty-server" % Versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-vertx-server" % Versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-netty-server-cats" % Versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-vertx-server-cats" % Versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-netty-server-sync" % Versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-http4s-server" % Versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-prometheus-metrics" % Versions.tapir,
      // Tapir's http4s server on the same http4s, Ember, cats-effect and fs2 as Rapier's and the vanilla twin's, so
      // that both libraries are compared with one twin on one stack
      "org.http4s" %% "http4s-ember-server" % Versions.http4s,
      "org.http4s" %% "http4s-dsl" % Versions.http4s,
      "org.typelevel" %% "cats-effect" % Versions.catsEffect,
      "co.fs2" %% "fs2-core" % Versions.fs2,
      "com.softwaremill.sttp.tapir" %% "tapir-jsoniter-scala" % Versions.tapir,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.tapirJsoniter % Provided,
      "org.slf4j" % "slf4j-nop" % Versions.slf4j
    )
  )

lazy val perfZio = (project in file("perf-suite/ziohttp"))
  .dependsOn(perfCommon)
  .settings(
    name := "rapier-perf-ziohttp",
    unpublished,
    PerfSuite.sources("vanilla-json"),
    // zio-http's own choices: its Netty and its ZIO. JSON for the vanilla twin through jsoniter-scala, as everywhere.
    libraryDependencies ++= Seq(
      "dev.zio" %% "zio-http" % Versions.zioHttp,
      "dev.zio" %% "zio-schema-derivation" % Versions.zioSchema,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-core" % Versions.jsoniter,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % Versions.jsoniter % Provided,
      "org.slf4j" % "slf4j-nop" % Versions.slf4j
    )
  )

PerfSuite.perfStage := PerfSuite.stage(perf, perfTapir, perfZio).value
