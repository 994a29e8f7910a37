package rapier.perf

import java.nio.file.{Files, Path}
import scala.util.Try

/**
 * h2load (Debian's `nghttp2-client`), the closed model of the HTTP/2 scenarios: `users` connections of [[Streams]]
 * streams each, over h2c by prior knowledge or h2 by ALPN over TLS, each stream sending its next request once the last
 * is answered. Its
 * summary gives no percentiles: they are read from its log of every request's duration.
 */
object H2load:
  /** Streams each connection keeps open. */
  val Streams = 10

  /** Seconds h2load sets up its TLS connections in before a timed run. */
  val TlsWarmUp = 3

  lazy val version: Option[String] = Try {
    val p = ProcessBuilder("h2load", "--version").redirectErrorStream(true).start()
    val out = String(p.getInputStream.readAllBytes())
    p.waitFor()
    out.linesIterator.find(_.startsWith("h2load")).map(_.trim)
  }.toOption.flatten

  /**
   * The command for one run, its requests' durations logged to `log`. Over TLS its connections are set up in
   * [[TlsWarmUp]] seconds of warm-up, outside the measured time: h2load, in a timed run that ends before its clients
   * are all set up, waits for their open streams forever, and 64 handshakes on one core take from a fifth of a second
   * (Netty's OpenSSL) to over one (Ember's fs2 over the JDK's engine, cold). A run is killed past its time by half a
   * minute, whatever hangs: the round fails rather than the suite.
   */
  def command(
      url: String,
      users: Int,
      seconds: Int,
      scenario: Scenario,
      body: Option[Path],
      log: Path,
      cpus: Option[List[Int]]
  ): List[String] =
    val threads = math.max(1, math.min(users, cpus.map(_.size).getOrElse(1)))
    val warmUp = if scenario.tls then List("--warm-up-time", TlsWarmUp.toString) else Nil
    List("timeout", "-k", "5", (seconds + 31).toString) ++
      cpus.toList.flatMap(c => List("taskset", "-c", c.mkString(","))) ++
      List("h2load", "-t", threads.toString, "-c", users.toString, "-m", Streams.toString, "-D", seconds.toString) ++
      warmUp ++
      scenario.contentType.toList.flatMap(ct => List("-H", s"content-type: $ct")) ++
      scenario.headers.flatMap((name, value) => List("-H", s"$name: $value")) ++
      body.toList.flatMap(f => List("-d", f.toString)) ++
      List("--log-file", log.toString, url)

  /** Runs h2load; its results as wrk's, or what went wrong. */
  def run(
      url: String,
      users: Int,
      seconds: Int,
      scenario: Scenario,
      body: Option[Path],
      cpus: Option[List[Int]]
  ): Either[String, WrkResult] =
    val log = Files.createTempFile("rapier-h2load", ".log")
    try Measurement.exec(command(url, users, seconds, scenario, body, log, cpus)).flatMap(parse(_, log))
    finally Files.deleteIfExists(log)

  private val Finished = """finished in ([\d.]+)(ms|s), ([\d.]+) req/s""".r.unanchored
  private val Requests =
    """requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout""".r.unanchored
  private val Statuses = """status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx""".r.unanchored
  private val Traffic = """traffic: .*?\((\d+)\) total""".r.unanchored

  /** The summary h2load printed and the durations it logged (`start\tstatus\tduration µs` a line). */
  def parse(output: String, log: Path): Either[String, WrkResult] =
    def line(prefix: String) = output.linesIterator.map(_.trim).find(_.startsWith(prefix))
    (line("finished in"), line("requests:"), line("status codes:")) match
      case (
            Some(Finished(time, unit, rate)),
            Some(Requests(_, _, done, succeeded, failed, errored, timeout)),
            Some(statuses)
          ) =>
        // Its time includes the warm-up; its counts and rate (requests succeeded a second) the measured time only
        val micros =
          if rate.toDouble > 0 then math.round(succeeded.toLong / rate.toDouble * 1e6)
          else (time.toDouble * (if unit == "ms" then 1e3 else 1e6)).toLong
        val non2xx = statuses match
          case Statuses(_, r3, r4, r5) => r3.toLong + r4.toLong + r5.toLong
          case _ => 0L
        val bytes = line("traffic:").collect { case Traffic(b) => b.toLong }.getOrElse(0L)
        latency(log).map(l =>
          WrkResult(
            requests = done.toLong - failed.toLong - errored.toLong,
            durationMicros = micros,
            bytes = bytes,
            connect = 0L,
            read = errored.toLong,
            write = failed.toLong,
            status = non2xx,
            timeout = timeout.toLong,
            latency = l
          )
        )
      case _ =>
        Left(s"h2load printed no results: ${output.linesIterator.toList.takeRight(5).mkString(" | ").take(300)}")

  // Percentiles of the logged durations (µs), nearest rank
  private def latency(log: Path): Either[String, Latency] =
    val durations = Try {
      val lines = Files.readAllLines(log)
      val out = new Array[Double](lines.size)
      var n = 0
      lines.forEach { l =>
        val fields = l.split('\t')
        if fields.length >= 3 then
          out(n) = fields(2).trim.toDouble
          n += 1
      }
      java.util.Arrays.copyOf(out, n)
    }.toEither.left.map(e => s"unreadable h2load log: $e")
    durations.flatMap { d =>
      if d.isEmpty then Left("h2load logged no request")
      else
        java.util.Arrays.sort(d)
        def at(q: Double) = d(math.min(d.length - 1, math.max(0, math.ceil(q * d.length).toInt - 1)))
        val mean = d.sum / d.length
        val sd = math.sqrt(d.map(x => (x - mean) * (x - mean)).sum / d.length)
        Right(Latency(d.head, d.last, mean, sd, at(0.5), at(0.75), at(0.9), at(0.99), at(0.999), at(0.9999)))
    }
