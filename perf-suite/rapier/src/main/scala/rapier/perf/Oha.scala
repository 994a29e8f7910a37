package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.{JsonValueCodec, readFromString}
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

import java.nio.file.{Path, Paths}
import scala.util.Try

/** What oha reports at the end of a run, in its JSON output (seconds). */
final case class OhaResult(
    requests: Long,
    seconds: Double,
    achievedRate: Double,
    errors: Long,
    latencyMs: LatencyMs
)

/**
 * oha, the open-model load generator: requests sent at a fixed rate whatever the answers do, with `--latency-correction`
 * measuring each request's latency from the time it was meant to be sent (no coordinated omission). Chosen over
 * vegeta, which on one CPU here reached 27,000 of 50,000 requests per second asked while oha held 70,000
 * (docs/adr/0006-open-model-load-generator.md).
 */
object Oha:
  /** oha on the PATH, or where `cargo install oha` puts it. */
  lazy val executable: Option[String] =
    val home = Option(System.getenv("CARGO_HOME")).map(Paths.get(_)).getOrElse(Paths.get(
      System.getProperty("user.home"),
      ".cargo"
    ))
    val candidates = List("oha", home.resolve("bin").resolve("oha").toString)
    candidates.find(c =>
      Try(ProcessBuilder(c, "--version").redirectErrorStream(true).start().waitFor() == 0).getOrElse(false)
    )

  lazy val version: Option[String] = executable.flatMap { exe =>
    Try {
      val p = ProcessBuilder(exe, "--version").redirectErrorStream(true).start()
      val out = String(p.getInputStream.readAllBytes()).trim
      p.waitFor()
      out
    }.toOption
  }

  /** The command line of a run at `rate` requests per second over `users` connections; `cpus` pins oha. */
  def command(
      exe: String,
      url: String,
      users: Int,
      seconds: Int,
      rate: Double,
      scenario: Scenario,
      bodyFile: Option[Path],
      cpus: Option[List[Int]]
  ): List[String] =
    cpus.toList.flatMap(c => List("taskset", "-c", c.mkString(","))) ++
      List(
        exe,
        "--no-tui",
        "--output-format",
        "json",
        "-z",
        s"${seconds}s",
        "-c",
        users.toString,
        "-q",
        math.max(1L, math.round(rate)).toString,
        "--latency-correction",
        "-w",
        "-m",
        scenario.method
      ) ++
      scenario.contentType.toList.flatMap(ct => List("-T", ct)) ++
      scenario.headers.flatMap((name, value) => List("-H", s"$name: $value")) ++
      (if scenario.newConnections then List("--disable-keepalive") else Nil) ++
      // The suite's own self-signed certificate: trusted by the probe, not worth a CA file here
      (if scenario.tls then List("--insecure") else Nil) ++
      (if scenario.http2 then List("--http2", "-p", H2load.Streams.toString) else Nil) ++
      bodyFile.toList.flatMap(f => List("-D", f.toString)) ++
      List(url)

  private final case class Summary(total: Double, requestsPerSec: Double, slowest: Option[Double])
  private final case class Output(
      summary: Summary,
      latencyPercentiles: Map[String, Option[Double]],
      statusCodeDistribution: Map[String, Long],
      errorDistribution: Map[String, Long]
  )
  private given JsonValueCodec[Output] = JsonCodecMaker.make(CodecMakerConfig.withSkipUnexpectedFields(true))

  /** The results in oha's JSON output, or what went wrong. */
  def parse(output: String): Either[String, OhaResult] =
    val json = output.linesIterator.dropWhile(!_.trim.startsWith("{")).mkString("\n")
    if json.isEmpty then
      Left(s"oha printed no results: ${output.linesIterator.toList.takeRight(5).mkString(" | ").take(300)}")
    else
      Try(readFromString[Output](json)).toEither.left.map(e => s"unreadable oha results: ${e.getMessage}").map { o =>
        val ok = o.statusCodeDistribution.collect { case (code, n) if code.startsWith("2") => n }.sum
        val failed = o.statusCodeDistribution.collect { case (code, n) if !code.startsWith("2") => n }.sum +
          o.errorDistribution.values.sum
        def p(name: String) = o.latencyPercentiles.get(name).flatten.getOrElse(0.0) * 1000
        OhaResult(
          requests = ok + failed,
          seconds = o.summary.total,
          achievedRate = o.summary.requestsPerSec,
          errors = failed,
          latencyMs = LatencyMs(
            p("p50"),
            p("p75"),
            p("p90"),
            p("p99"),
            p("p99.9"),
            p("p99.99"),
            o.summary.slowest.getOrElse(0.0) * 1000
          )
        )
      }
