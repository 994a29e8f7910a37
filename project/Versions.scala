/** The versions of what the build depends on, in one place. */
object Versions {
  // The one Netty of the build (docs/adr/0003-one-netty-version.md): 4.2.18, the newest whose epoll native jars are on
  // Maven Central. Vert.x runs on it too.
  val netty = "4.2.18.Final"
  // OpenSSL's provider for Netty's TLS (BoringSSL, linked statically), in the Netty backend's tests: users add it
  val tcnative = "2.0.84.Final"
  val slf4j = "2.0.17"
  val munit = "1.3.0"
  val munitScalacheck = "1.3.0"
  val jsoniter = "2.38.17"
  // The circe module: circe-core with circe-jawn, which parses from bytes.
  val circe = "0.14.15"
  // The zio-json module: on the ZIO the zio module runs.
  val zioJson = "0.9.2"
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
  val prometheus = "1.10.0"
  // opentelemetry-api for the metrics and tracing modules; the SDK's testing module for the kit.
  val openTelemetry = "1.68.0"
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
