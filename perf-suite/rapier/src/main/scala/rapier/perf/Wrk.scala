package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.{JsonValueCodec, readFromString}
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker

import java.nio.file.Path
import scala.util.Try

/** Latency of a run as wrk recorded it, in microseconds. */
final case class Latency(
    min: Double,
    max: Double,
    mean: Double,
    stdev: Double,
    p50: Double,
    p75: Double,
    p90: Double,
    p99: Double,
    p999: Double,
    p9999: Double
)

/** What wrk reports at the end of a run (through the `done` function of the generated script). */
final case class WrkResult(
    requests: Long,
    durationMicros: Long,
    bytes: Long,
    connect: Long,
    read: Long,
    write: Long,
    status: Long,
    timeout: Long,
    latency: Latency
):
  def errors: Long = connect + read + write + status + timeout
  def throughput: Double = if durationMicros <= 0 then 0 else requests * 1e6 / durationMicros

/**
 * wrk, the closed-model load generator: `users` connections, each sending its next request when the previous one
 * has been answered.
 */
object Wrk:
  val ResultPrefix = "RAPIER_WRK "

  private given JsonValueCodec[WrkResult] = JsonCodecMaker.make

  lazy val version: Option[String] = Try {
    val p = ProcessBuilder("wrk", "-v").redirectErrorStream(true).start()
    val out = String(p.getInputStream.readAllBytes())
    p.waitFor()
    out.linesIterator.find(_.startsWith("wrk")).map(_.trim)
  }.toOption.flatten

  /**
   * The Lua script of a scenario: its method, headers and body (read from `bodyFile`), and a `done` function that
   * prints the results as one JSON line, latency percentiles included.
   */
  def script(scenario: Scenario, bodyFile: Option[Path]): String =
    val lines = List.newBuilder[String]
    lines += s"-- ${scenario.name}: ${scenario.description}"
    lines += s"""wrk.method = "${scenario.method}""""
    scenario.contentType.foreach(ct => lines += s"""wrk.headers["Content-Type"] = "$ct"""")
    scenario.headers.foreach((name, value) => lines += s"""wrk.headers["$name"] = "$value"""")
    if scenario.newConnections then lines += """wrk.headers["Connection"] = "close""""
    bodyFile.foreach { f =>
      lines += s"""local file = assert(io.open("${f.toAbsolutePath.toString.replace("\\", "\\\\")}", "rb"))"""
      lines += "wrk.body = file:read(\"*a\")"
      lines += "file:close()"
    }
    lines += """function done(summary, latency, requests)
               |  local e = summary.errors
               |  io.write(string.format('RAPIER_WRK {"requests":%.0f,"durationMicros":%.0f,"bytes":%.0f,' ..
               |    '"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,',
               |    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout))
               |  io.write(string.format('"latency":{"min":%.0f,"max":%.0f,"mean":%.3f,"stdev":%.3f,' ..
               |    '"p50":%.0f,"p75":%.0f,"p90":%.0f,"p99":%.0f,"p999":%.0f,"p9999":%.0f}}\n',
               |    latency.min, latency.max, latency.mean, latency.stdev,
               |    latency:percentile(50), latency:percentile(75), latency:percentile(90),
               |    latency:percentile(99), latency:percentile(99.9), latency:percentile(99.99)))
               |end""".stripMargin
    lines.result().mkString("", "\n", "\n")

  /** The command line of a run; `cpus` pins wrk when given. */
  def command(url: String, users: Int, seconds: Int, script: Path, cpus: Option[List[Int]]): List[String] =
    val threads = math.max(1, math.min(users, cpus.map(_.size).getOrElse(1)))
    cpus.toList.flatMap(c => List("taskset", "-c", c.mkString(","))) ++
      List("wrk", s"-t$threads", s"-c$users", s"-d${seconds}s", "--timeout", "30s", "-s", script.toString, url)

  /** The results in wrk's output, or what went wrong. */
  def parse(output: String): Either[String, WrkResult] =
    output.linesIterator.find(_.startsWith(ResultPrefix)) match
      case None =>
        Left(s"wrk printed no results: ${output.linesIterator.toList.takeRight(5).mkString(" | ").take(300)}")
      case Some(line) =>
        Try(readFromString[WrkResult](line.stripPrefix(ResultPrefix))).toEither.left.map(e =>
          s"unreadable wrk results: ${e.getMessage}"
        )
