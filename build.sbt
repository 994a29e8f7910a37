// Rapier: typed HTTP endpoints, served with next to no overhead.

ThisBuild / organization := "rapier"
ThisBuild / version := "0.1.0-SNAPSHOT"
ThisBuild / scalaVersion := "3.3.7"
ThisBuild / scalacOptions ++= Seq(
  "-deprecation",
  "-feature",
  "-unchecked",
  "-Wunused:imports,privates,locals,implicits",
  "-Werror"
)
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17")

val versions = new {
  // The one Netty of the build (docs/adr/0003-one-netty-version.md): 4.2.18, the newest whose epoll native jars are on
  // Maven Central. Vert.x runs on it too.
  val netty = "4.2.18.Final"
  val slf4j = "2.0.17"
  val munit = "1.3.0"
  val munitScalacheck = "1.3.0"
  val jsoniter = "2.38.17"
  val jazzer = "0.30.0"
  val vertx = "5.2.3"
  // The newest vertx-web on Maven Central; it runs on the vertx-core above.
  val vertxWeb = "5.1.6"
  val jupiterInterface = "0.15.1"
  // The peer in the performance suite, with the versions it brings (Netty 4.1, jsoniter 2.33).
  val tapir = "1.11.15"
  val tapirJsoniter = "2.33.2"
  // Writes OpenAPI documents as JSON and YAML; the version swagger-parser's own BOM names.
  val jackson = "2.22.1"
  val swaggerParser = "2.1.48"
  val swaggerUi = "5.34.1"
  // The second peer in the performance suite, with the Netty (4.2.15) and ZIO it brings.
  val zioHttp = "3.11.3"
  val zioSchema = "1.8.5"
  // The cats-effect module, and the fs2 it streams bodies with.
  val catsEffect = "3.7.1"
  // The ZIO module: the ZIO and ZIO streams zio-http 3.11.3 brings, so that the suite's zio-http side and Rapier's
  // ZIO side run the same runtime.
  val zio = "2.1.26"
  val fs2 = "3.14.0"
  // The http4s backend: its Ember server and the http4s core it is mounted with.
  val http4s = "0.23.37"
  // The pekko-http backend, on the Pekko (actors, streams) it is built for.
  val pekkoHttp = "1.3.0"
  val pekko = "1.2.1"
  // Attached to the suite's servers by `./perf --profile`.
  val asyncProfiler = "4.6"
  // Latency histograms to p99.9999 in the suite's WebSocket study, and its hiccup meter.
  val hdrHistogram = "2.2.2"
}

val munit = "org.scalameta" %% "munit" % versions.munit

// Vert.x brings a newer Netty patch release; every module runs on the build's one Netty instead.
val nettyPin = dependencyOverrides ++= Seq(
  "common",
  "buffer",
  "transport",
  "handler",
  "handler-proxy",
  "codec-base",
  "codec-compression",
  "codec-http",
  "codec-http2",
  "codec-http3",
  "codec-classes-quic",
  "codec-dns",
  "codec-socks",
  "codec-haproxy",
  "resolver",
  "resolver-dns",
  "transport-native-unix-common",
  "transport-classes-epoll"
).map(name => "io.netty" % s"netty-$name" % versions.netty)

// Netty's leak detector at its strictest in every test JVM: a LEAK fails the build (see rapier.testkit.LeakDetection).
// Every buffer is tracked, and a leak reported with where it was retained and released; the stack trace Netty would
// record at every other read or write of a buffer is not taken (unmasking one WebSocket frame of 16 MiB took two
// million of them: 5-8 s on Vert.x, against the kit client's 10 s read timeout).
// Each module's tests have a temporary folder of their own, so that a test counting the files left there (uploads)
// does not count another module's, whose tests may run at the same time.
val testSettings = Seq(
  Test / fork := true,
  Test / javaOptions ++= Seq(
    "-Dio.netty.leakDetection.level=paranoid",
    "-Dio.netty.leakDetection.targetRecords=8",
    "-Dio.netty.leakDetection.acquireAndReleaseOnly=true",
    "-Xmx1g"
  ),
  Test / javaOptions += {
    val tmp = (Test / target).value / "tmp"
    IO.createDirectory(tmp)
    s"-Djava.io.tmpdir=$tmp"
  },
  Test / testOptions += Tests.Argument(TestFrameworks.MUnit, "-b"),
  libraryDependencies += munit % Test
)

lazy val root = (project in file("."))
  .aggregate(
    core,
    server,
    jsonJsoniter,
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
    testkit,
    fuzz,
    examples,
    bench,
    perfCommon,
    perf,
    perfTapir,
    perfZio
  )
  .settings(name := "rapier", publish / skip := true)

lazy val core = (project in file("core"))
  .settings(testSettings)
  .settings(
    name := "rapier-core",
    libraryDependencies += "org.scalameta" %% "munit-scalacheck" % versions.munitScalacheck % Test
  )

lazy val server = (project in file("server"))
  .dependsOn(core)
  .settings(testSettings)
  .settings(
    name := "rapier-server",
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-api" % versions.slf4j,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

// JSON integrations, under json/.
lazy val jsonJsoniter = (project in file("json/jsoniter"))
  .dependsOn(core, server % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-json-jsoniter",
    libraryDependencies ++= Seq(
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-core" % versions.jsoniter,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Test,
      "org.scalameta" %% "munit-scalacheck" % versions.munitScalacheck % Test
    )
  )

// Server backends, under backends/. nettyHttp is what the backends built on Netty's HTTP codec share (Netty's and
// Vert.x's): the strict reading of a request head that Netty's decoder leaves out, and how a refused one is marked.
lazy val nettyHttp = (project in file("backends/netty-http"))
  .dependsOn(server)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-http",
    libraryDependencies += "io.netty" % "netty-codec-http" % versions.netty
  )

lazy val netty = (project in file("backends/netty"))
  .dependsOn(server, nettyHttp, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty",
    libraryDependencies ++= Seq(
      "io.netty" % "netty-codec-http" % versions.netty,
      "io.netty" % "netty-handler" % versions.netty,
      "io.netty" % "netty-transport-native-epoll" % versions.netty classifier "linux-x86_64",
      "io.netty" % "netty-transport-native-epoll" % versions.netty classifier "linux-aarch_64",
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

lazy val vertx = (project in file("backends/vertx"))
  .dependsOn(server, nettyHttp, testkit % Test)
  .settings(testSettings)
  .settings(
    nettyPin,
    name := "rapier-vertx",
    libraryDependencies ++= Seq(
      "io.vertx" % "vertx-core" % versions.vertx,
      // Only for VertxServerInterpreter.routeHandler: applications that mount Rapier on a Router bring their own.
      "io.vertx" % "vertx-web" % versions.vertxWeb % Provided,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

// Direct style on Netty, one virtual thread per request: JDK 21's, so its tests run on a JDK 21 or newer that the
// build finds (RAPIER_JDK21, else the newest under /usr/lib/jvm, else the JDK sbt runs on), and skip themselves,
// saying why, where there is none. The module itself builds for 17 like the rest, and says at start what it needs.
lazy val jdk21: Option[File] = {
  def version(home: File): Int =
    Option(home / "release")
      .filter(_.exists)
      .flatMap(release =>
        IO.readLines(release).collectFirst {
          case line if line.startsWith("JAVA_VERSION=") => line.stripPrefix("JAVA_VERSION=").replace("\"", "")
        }
      )
      .flatMap(v => scala.util.Try(v.takeWhile(_.isDigit).toInt).toOption)
      .getOrElse(0)
  val candidates = sys.env.get("RAPIER_JDK21").map(file).toSeq ++
    Option(file("/usr/lib/jvm").listFiles).toSeq.flatten ++ Seq(file(sys.props("java.home")))
  candidates.filter(version(_) >= 21).sortBy(version).lastOption
}

lazy val nettySync = (project in file("backends/netty-sync"))
  .dependsOn(netty, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-sync",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % versions.slf4j % Test,
    Test / javaHome := jdk21,
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
      "org.typelevel" %% "cats-effect" % versions.catsEffect,
      "co.fs2" %% "fs2-core" % versions.fs2
    )
  )

lazy val nettyCats = (project in file("backends/netty-cats"))
  .dependsOn(netty, catsEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-cats",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
  )

lazy val vertxCats = (project in file("backends/vertx-cats"))
  .dependsOn(vertx % "compile->compile;test->test", catsEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    nettyPin,
    name := "rapier-vertx-cats",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
  )

lazy val zioEffect = (project in file("effects/zio"))
  .dependsOn(server, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-zio",
    libraryDependencies ++= Seq(
      "dev.zio" %% "zio" % versions.zio,
      "dev.zio" %% "zio-streams" % versions.zio
    )
  )

lazy val nettyZio = (project in file("backends/netty-zio"))
  .dependsOn(netty, zioEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-netty-zio",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
  )

lazy val vertxZio = (project in file("backends/vertx-zio"))
  .dependsOn(vertx % "compile->compile;test->test", zioEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    nettyPin,
    name := "rapier-vertx-zio",
    libraryDependencies += "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
  )

// http4s: endpoints as HttpRoutes[F] beside an application's own, or a standalone Ember server; bodies as the fs2
// streams http4s has.
lazy val http4s = (project in file("backends/http4s"))
  .dependsOn(catsEffect % "compile->compile;test->test", testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-http4s",
    libraryDependencies ++= Seq(
      "org.http4s" %% "http4s-ember-server" % versions.http4s,
      "org.http4s" %% "http4s-dsl" % versions.http4s % Test,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
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
      "org.apache.pekko" %% "pekko-http" % versions.pekkoHttp,
      "org.apache.pekko" %% "pekko-stream" % versions.pekko,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

// Documentation interpreters, under apidocs/.
lazy val openapi = (project in file("apidocs/openapi"))
  .dependsOn(core, jsonJsoniter % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-openapi",
    libraryDependencies ++= Seq(
      "com.fasterxml.jackson.core" % "jackson-core" % versions.jackson,
      "com.fasterxml.jackson.dataformat" % "jackson-dataformat-yaml" % versions.jackson,
      "io.swagger.parser.v3" % "swagger-parser" % versions.swaggerParser % Test,
      "org.slf4j" % "slf4j-nop" % versions.slf4j % Test,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Test
    )
  )

// Swagger UI's static files come from the webjar, served by ordinary endpoints on any backend.
lazy val swaggerUi = (project in file("apidocs/swagger-ui"))
  .dependsOn(openapi, server, netty % Test, vertx % Test, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-swagger-ui",
    libraryDependencies ++= Seq(
      "org.webjars" % "swagger-ui" % versions.swaggerUi,
      "org.slf4j" % "slf4j-nop" % versions.slf4j % Test
    ),
    nettyPin,
    Compile / sourceGenerators += Def.task {
      // The webjar's version, for the path of its files inside the jar.
      val file = (Compile / sourceManaged).value / "rapier" / "swaggerui" / "WebjarVersion.scala"
      IO.write(
        file,
        s"""package rapier.swaggerui\n\nprivate[swaggerui] object WebjarVersion:\n  val value = "${versions.swaggerUi}"\n"""
      )
      Seq(file)
    }.taskValue
  )

lazy val testkit = (project in file("testkit"))
  .dependsOn(server, jsonJsoniter)
  .settings(testSettings)
  .settings(
    name := "rapier-testkit",
    libraryDependencies ++= Seq(
      munit,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Provided,
      "io.netty" % "netty-common" % versions.netty,
      "io.netty" % "netty-buffer" % versions.netty,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test
    )
  )

// Fuzz tests (Jazzer, on JUnit 5): each target fuzzes in its own JVM, for JAZZER_MAX_DURATION (30 s unless set).
lazy val fuzz = (project in file("fuzz"))
  .dependsOn(netty, jsonJsoniter, testkit)
  .settings(testSettings)
  .settings(
    name := "rapier-fuzz",
    publish / skip := true,
    libraryDependencies ++= Seq(
      "com.code-intelligence" % "jazzer-junit" % versions.jazzer % Test,
      "com.github.sbt.junit" % "jupiter-interface" % versions.jupiterInterface % Test,
      "org.slf4j" % "slf4j-simple" % versions.slf4j % Test,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Provided
    ),
    testFrameworks += new TestFramework("com.github.sbt.junit.jupiter.api.JupiterFramework"),
    // JUnit finds the tests in a class; sbt only needs the classes, by the Jupiter framework's fingerprint.
    Test / definedTests := {
      val jupiter = new sbt.testing.AnnotatedFingerprint {
        def isModule = false
        def annotationName = "com.github.sbt.junit.jupiter.api.JupiterTestFingerprint"
      }
      ((Test / scalaSource).value ** "*FuzzTest.scala").get.map { file =>
        val pkg = IO.relativize((Test / scalaSource).value, file.getParentFile).get.replace('/', '.')
        new TestDefinition(s"$pkg.${file.base}", jupiter, false, Array(new sbt.testing.SuiteSelector))
      }
    },
    Test / testGrouping := {
      val jvmOptions = (Test / javaOptions).value.toVector
      val directory = baseDirectory.value
      (Test / definedTests).value.map { test =>
        val env = Map(
          "JAZZER_FUZZ" -> sys.env.getOrElse("JAZZER_FUZZ", "1"),
          "JAZZER_MAX_DURATION" -> sys.env.getOrElse("JAZZER_MAX_DURATION", "30s")
        )
        val options = ForkOptions().withRunJVMOptions(jvmOptions).withEnvVars(env).withWorkingDirectory(directory)
        Tests.Group(test.name, Seq(test), Tests.SubProcess(options))
      }
    }
  )

lazy val examples = (project in file("examples"))
  .dependsOn(netty, vertx, nettyCats, nettyZio, nettySync, jsonJsoniter, openapi, swaggerUi, testkit % Test)
  .settings(testSettings)
  .settings(
    name := "rapier-examples",
    publish / skip := true,
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-simple" % versions.slf4j,
      "io.vertx" % "vertx-web" % versions.vertxWeb,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Provided,
      // The books API's document is checked by the validator the openapi module's tests use.
      "io.swagger.parser.v3" % "swagger-parser" % versions.swaggerParser % Test
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
    publish / skip := true,
    libraryDependencies ++= Seq(
      "org.slf4j" % "slf4j-nop" % versions.slf4j,
      "org.http4s" %% "http4s-dsl" % versions.http4s,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Provided
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
    publish / skip := true,
    libraryDependencies ++= Seq(
      "tools.profiler" % "async-profiler" % versions.asyncProfiler,
      "org.hdrhistogram" % "HdrHistogram" % versions.hdrHistogram
    )
  )

def suiteSources(folders: String*) = Compile / unmanagedSourceDirectories ++= folders.map(
  (LocalRootProject / baseDirectory).value / "perf-suite" / _
)
val vanillaSources = suiteSources("vanilla-netty", "vanilla-vertx", "vanilla-json")

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
    testkit % Test
  )
  .settings(testSettings)
  .settings(
    name := "rapier-perf",
    publish / skip := true,
    vanillaSources,
    suiteSources("vanilla-http4s", "vanilla-pekko"),
    nettyPin,
    // The tests start the Tapir and zio-http sides' servers too, from the class paths written here.
    Test / javaOptions ++= {
      val tapir = writeClassPath(target.value / "classpath-tapir.txt", (perfTapir / Runtime / fullClasspath).value)
      val zio = writeClassPath(target.value / "classpath-ziohttp.txt", (perfZio / Runtime / fullClasspath).value)
      Seq(s"-Drapier.perf.classpath.tapir=$tapir", s"-Drapier.perf.classpath.ziohttp=$zio")
    },
    libraryDependencies ++= Seq(
      "io.vertx" % "vertx-web" % versions.vertxWeb,
      "org.http4s" %% "http4s-dsl" % versions.http4s,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-core" % versions.jsoniter,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Provided,
      "org.slf4j" % "slf4j-nop" % versions.slf4j
    )
  )

lazy val perfTapir = (project in file("perf-suite/tapir"))
  .dependsOn(perfCommon)
  .settings(
    name := "rapier-perf-tapir",
    publish / skip := true,
    vanillaSources,
    suiteSources("vanilla-http4s"),
    // Tapir's own choices, not Rapier's: its Netty (4.1), its Vert.x (4.5) and its jsoniter; for http4s, the stack
    // Rapier's side runs.
    libraryDependencies ++= Seq(
      "com.softwaremill.sttp.tapir" %% "tapir-netty-server" % versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-vertx-server" % versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-netty-server-cats" % versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-vertx-server-cats" % versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-netty-server-sync" % versions.tapir,
      "com.softwaremill.sttp.tapir" %% "tapir-http4s-server" % versions.tapir,
      // Tapir's http4s server on the same http4s, Ember, cats-effect and fs2 as Rapier's and the vanilla twin's, so
      // that both libraries are compared with one twin on one stack
      "org.http4s" %% "http4s-ember-server" % versions.http4s,
      "org.http4s" %% "http4s-dsl" % versions.http4s,
      "org.typelevel" %% "cats-effect" % versions.catsEffect,
      "co.fs2" %% "fs2-core" % versions.fs2,
      "com.softwaremill.sttp.tapir" %% "tapir-jsoniter-scala" % versions.tapir,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.tapirJsoniter % Provided,
      "org.slf4j" % "slf4j-nop" % versions.slf4j
    )
  )

lazy val perfZio = (project in file("perf-suite/ziohttp"))
  .dependsOn(perfCommon)
  .settings(
    name := "rapier-perf-ziohttp",
    publish / skip := true,
    suiteSources("vanilla-json"),
    // zio-http's own choices: its Netty and its ZIO. JSON for the vanilla twin through jsoniter-scala, as everywhere.
    libraryDependencies ++= Seq(
      "dev.zio" %% "zio-http" % versions.zioHttp,
      "dev.zio" %% "zio-schema-derivation" % versions.zioSchema,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-core" % versions.jsoniter,
      "com.github.plokhotnyuk.jsoniter-scala" %% "jsoniter-scala-macros" % versions.jsoniter % Provided,
      "org.slf4j" % "slf4j-nop" % versions.slf4j
    )
  )

/** Writes `classpath` to `file`, its entries joined by the path separator, as ./perf and the suite's tests read it. */
def writeClassPath(file: File, classpath: Classpath): File = {
  IO.write(file, classpath.files.mkString(java.io.File.pathSeparator))
  file
}

/**
 * Compiles the suite's sides and writes their run-time classpaths where ./perf reads them: the project's modules
 * packaged as jars, as an application ships them (class directories cost each server's start a `file:` URL and a
 * `File` per class found there, about 20 MiB of resident garbage under the suite's heap:
 * docs/perf/2026-11-26-netty-start-rss).
 */
lazy val perfStage = taskKey[Unit]("Compile the performance suite and write its classpaths for ./perf")
perfStage := {
  val out = (LocalRootProject / target).value / "perf"
  IO.createDirectory(out)
  writeClassPath(out / "classpath-rapier.txt", (perf / Runtime / fullClasspathAsJars).value)
  writeClassPath(out / "classpath-tapir.txt", (perfTapir / Runtime / fullClasspathAsJars).value)
  writeClassPath(out / "classpath-ziohttp.txt", (perfZio / Runtime / fullClasspathAsJars).value)
  streams.value.log.info(s"perf classpaths written to $out")
}
