package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.{JsonValueCodec, readFromString}
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import rapier.perf.common.{ProcessStats, ServerMain, TlsFiles}

import java.io.{BufferedReader, InputStreamReader}
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.time.Duration
import java.util.concurrent.{LinkedBlockingQueue, TimeUnit}
import scala.jdk.CollectionConverters.*
import scala.util.{Try, Using}

/**
 * How a server's JVM is started: its command line, and the directory given to it for its temporary files
 * (`java.io.tmpdir`). The suite kills its servers when it is done with them, so what a server would delete as it exits
 * (the file `GET /pathFile{n}` sends, Vert.x's file cache) stays; the suite deletes this directory instead.
 */
final case class ServerCommand(args: List[String], tmpDir: Path):
  /**
   * Deletes [[tmpDir]] with what it holds, once the server has exited; quietly, and again (three tries at most) when a
   * server still exiting deleted a file under the walk.
   */
  def deleteTmpDir(): Unit =
    var tries = 0
    while tries < 3 && Files.exists(tmpDir) do
      Try(Using.resource(Files.walk(tmpDir))(_.iterator.asScala.toList))
        .foreach(_.reverse.foreach(path => Try(Files.deleteIfExists(path))))
      tries += 1

  /**
   * Ends `process`, the server this command started, and deletes [[tmpDir]] once it has exited: killed at once if
   * `forcibly`, otherwise asked to stop (SIGTERM, a no-op if it is stopping already) and killed if it still runs 10 s
   * later.
   */
  def end(process: Process, forcibly: Boolean): Unit =
    if forcibly then process.destroyForcibly() else process.destroy()
    if !process.waitFor(10, TimeUnit.SECONDS) then process.destroyForcibly().waitFor(10, TimeUnit.SECONDS)
    deleteTmpDir()

/** A server of the catalogue running in a JVM of its own, pinned to the server CPUs. */
final class ServerProcess private (
    process: Process,
    command: ServerCommand,
    val pid: Long,
    val port: Int,
    controlPort: Int,
    val routeSets: Int,
    output: ServerProcess.Tail
):
  /** The server's own account of its allocations, collections and CPU time. */
  def stats(): Option[ProcessStats] =
    control("GET", "/stats").toOption.flatMap(body =>
      Try(readFromString[ProcessStats](body)(using ServerProcess.statsCodec)).toOption
    )

  /** The server's record of its CPU, heap and resident memory since it started. */
  def samples(): Option[ServerSamples] =
    control("GET", "/samples").toOption.flatMap(body =>
      Try(readFromString[ServerSamples](body)(using ServerProcess.samplesCodec)).toOption
    )

  /** The JVM's hiccups since the last call, as JSON (for a server started with `--hiccups true`). */
  def hiccups(): Either[String, String] = control("GET", "/hiccups")

  /** The heap live after a full collection (MiB), or None when the control port did not say. */
  def liveHeapMiB(): Option[Double] =
    control("GET", "/heap").toOption.flatMap(body =>
      """"liveBytes":(\d+)""".r.findFirstMatchIn(body).map(_.group(1).toLong / 1048576.0)
    )

  /** Starts async-profiler in the server: `event` is cpu or alloc. */
  def profileStart(event: String): Either[String, Unit] = control("POST", s"/profile/start?event=$event").map(_ => ())

  /** Stops async-profiler, which writes `<prefix>.html` and `<prefix>.collapsed`; the number of samples. */
  def profileStop(prefix: java.nio.file.Path, byBytes: Boolean): Either[String, Long] =
    val path = java.net.URLEncoder.encode(prefix.toString, StandardCharsets.UTF_8)
    control("POST", s"/profile/stop?prefix=$path&bytes=$byBytes").flatMap(body =>
      "\\d+".r.findFirstIn(body).flatMap(_.toLongOption).toRight(s"unreadable profiler answer: $body")
    )

  /** A request to the control port: its body, or why there is none. */
  private def control(method: String, path: String): Either[String, String] =
    Try {
      val request = HttpRequest.newBuilder(URI.create(s"http://127.0.0.1:$controlPort$path"))
        .timeout(Duration.ofSeconds(60)).method(method, HttpRequest.BodyPublishers.noBody()).build()
      ServerProcess.client.send(request, HttpResponse.BodyHandlers.ofString())
    }.toEither.left.map(e => s"the control port did not answer: $e").flatMap(r =>
      if r.statusCode == 200 then Right(r.body) else Left(r.body)
    )

  /** The CPU time of the server's threads, in nanoseconds (see [[ProcFs.cpuNanos]]). */
  def cpuNanos: Option[Long] = ProcFs.cpuNanos(pid)
  def peakRssMiB: Option[Double] = ProcFs.peakRssMiB(pid)
  def rssMiB: Option[Double] = ProcFs.rssMiB(pid)
  def recentOutput: String = output.text

  /** The directory the server keeps its temporary files in; deleted by [[stop]]. */
  def tmpDir: Path = command.tmpDir

  /** Whether the server's JVM still runs. */
  def alive: Boolean = process.isAlive

  /**
   * Stops the server at once: killed, since its measurements are over and a graceful stop (seconds of Netty's quiet
   * period, per JVM) would only lengthen the run. Its temporary files go with it.
   */
  def stop(): Unit = command.end(process, forcibly = true)

object ServerProcess:
  private val client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
  private val statsCodec: JsonValueCodec[ProcessStats] = JsonCodecMaker.make
  private val samplesCodec: JsonValueCodec[ServerSamples] = JsonCodecMaker.make

  /** The last lines a server printed, for error messages. */
  final class Tail:
    private val lines = java.util.concurrent.ConcurrentLinkedDeque[String]()
    def add(line: String): Unit =
      lines.addLast(line)
      while lines.size > 40 do lines.pollFirst()
    def text: String = String.join("\n", lines)

  /** The JVM command of a server, with a new directory for its temporary files; pinned to `cpus` when given. */
  def command(
      java: String,
      jvmOptions: List[String],
      classpath: String,
      spec: ServerSpec,
      port: Int,
      threads: Int,
      cpus: Option[List[Int]],
      stopOnEof: Boolean
  ): ServerCommand =
    val tmpDir = Files.createTempDirectory("rapier-perf-server-")
    val args = cpus.toList.flatMap(c => List("taskset", "-c", c.mkString(","))) ++
      (java :: jvmOptions ++ spec.java.options) ++
      List(
        s"-Djava.io.tmpdir=$tmpDir",
        "-cp",
        classpath,
        "rapier.perf.common.ServerMain",
        spec.className,
        "--port",
        port.toString,
        "--routes",
        spec.routes.toString,
        "--log",
        spec.requestLog.toString,
        "--threads",
        threads.toString,
        "--stop-on-eof",
        stopOnEof.toString,
        "--compression",
        spec.compression.toString,
        "--tls",
        spec.tls.toString,
        "--http2",
        spec.http2.toString
      )
    ServerCommand(args, tmpDir)

  private val Exited = "\u0000exited"

  /** Starts a server and waits until it says it is ready; or says why it could not start. */
  def start(command: ServerCommand, timeoutSeconds: Int = 60): Either[String, ServerProcess] =
    val process = ProcessBuilder(command.args*).redirectErrorStream(true).start()
    val tail = Tail()
    val ready = LinkedBlockingQueue[String]()
    val reader = Thread(
      () =>
        val in = BufferedReader(InputStreamReader(process.getInputStream, StandardCharsets.UTF_8))
        Iterator.continually(in.readLine()).takeWhile(_ != null).foreach { line =>
          if line.startsWith(ServerMain.ReadyPrefix) then ready.put(line) else tail.add(line)
        }
        // The output ended: a server that exited before it was ready is reported at once, not at the timeout
        ready.put(Exited)
      ,
      "perf-server-output"
    )
    reader.setDaemon(true)
    reader.start()
    val started = Option(ready.poll(timeoutSeconds, TimeUnit.SECONDS)) match
      case None =>
        Left(
          s"the server did not start within $timeoutSeconds s: ${tail.text.linesIterator.toList.takeRight(8).mkString(" | ")}"
        )
      case Some(Exited) =>
        process.waitFor(5, TimeUnit.SECONDS)
        val code = if process.isAlive then "still running" else s"exit code ${process.exitValue}"
        Left(
          s"the server exited before it was ready ($code): ${tail.text.linesIterator.toList.takeRight(8).mkString(" | ")}"
        )
      case Some(line) =>
        val fields = line.split(' ').drop(1).flatMap(_.split('=') match
          case Array(k, v) => Some(k -> v);
          case _ => None).toMap
        (
          fields.get("port").flatMap(_.toIntOption),
          fields.get("control").flatMap(_.toIntOption),
          fields.get("pid").flatMap(_.toLongOption),
          fields.get("routeSets").flatMap(_.toIntOption)
        ) match
          case (Some(port), Some(control), Some(pid), Some(routeSets)) =>
            Right(ServerProcess(process, command, pid, port, control, routeSets, tail))
          case _ => Left(s"unreadable ready line: $line")
    if started.isLeft then command.end(process, forcibly = true)
    started

/** What a server's [[rapier.perf.common.Sampler]] recorded: four series of the same length. */
final case class ServerSamples(
    intervalMillis: Long,
    epochMillis: Array[Long],
    cpuNanos: Array[Long],
    heapBytes: Array[Long],
    rssBytes: Array[Long]
):
  /** As a timeline: CPU in percent of one CPU between samples, memory in MiB, `marks` (wall-clock) placed on it. */
  def timeline(marks: List[(String, Long)]): Timeline =
    val n = epochMillis.length
    val start = if n > 0 then epochMillis(0) else 0L
    def round1(x: Double) = math.round(x * 10) / 10.0
    val cpu = (0 until n).map { i =>
      if i == 0 then 0.0
      else
        val dt = (epochMillis(i) - epochMillis(i - 1)).toDouble
        if dt <= 0 then 0.0 else round1((cpuNanos(i) - cpuNanos(i - 1)) / 1e6 / dt * 100)
    }
    Timeline(
      intervalMs = intervalMillis.toInt,
      cpuPercent = cpu.toList,
      heapMiB = heapBytes.toList.map(b => round1(b / 1048576.0)),
      rssMiB = rssBytes.toList.map(b => round1(b / 1048576.0)),
      marks = marks.map((label, at) => Mark(label, math.round((at - start) / 10.0) / 100.0))
    )

/**
 * One request of a scenario, checked for the right answer before the server is loaded: a server that answers
 * wrongly is never measured.
 */
object Probe:
  private val client =
    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build()
  private lazy val tlsClient = HttpClient
    .newBuilder()
    .version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(5))
    .sslContext(TlsFiles.trusting)
    .build()

  /** None when the answer is right; otherwise what is wrong with it. A study's server is checked by its client. */
  def check(host: String, port: Int, scenario: Scenario): Option[String] =
    scenario.study.fold(
      request(host, port, scenario)
        .orElse(if scenario.newConnections then closes(host, port, scenario) else None)
        .orElse(if scenario.http2 then overHttp2(host, port, scenario) else None)
    )(StudyMeasurement.probe(_, host, port))

  /**
   * Whether the server answers the scenario over h2c by prior knowledge, as h2load will send it: its answer's content
   * was checked over HTTP/1.1, which it serves on the same port.
   */
  private def overHttp2(host: String, port: Int, scenario: Scenario): Option[String] =
    val body = scenario.body.map { bytes =>
      val file = java.nio.file.Files.createTempFile("rapier-probe", ".body")
      java.nio.file.Files.write(file, bytes)
    }
    try
      val url = s"${scenario.scheme}://$host:$port${scenario.path}"
      val command = List("h2load", "-n", "2", "-c", "1", "-m", "1") ++
        scenario.contentType.toList.flatMap(ct => List("-H", s"content-type: $ct")) ++
        body.toList.flatMap(f => List("-d", f.toString)) ++ List(url)
      Measurement.exec(command) match
        case Left(why) => Some(why)
        case Right(out) =>
          if out.contains("2 succeeded") && out.contains("status codes: 2 2xx") then None
          else
            Some(
              s"h2load was not answered 200 twice over HTTP/2: ${out.linesIterator.filter(_.contains("requests:")).mkString}"
            )
    finally body.foreach(java.nio.file.Files.deleteIfExists)

  /**
   * Whether the server answers a request with `Connection: close` saying so, and closes the connection: the load
   * generators open a new one only then (a server that kept it open would be measured on one connection per user).
   */
  private def closes(host: String, port: Int, scenario: Scenario): Option[String] =
    Try {
      val open =
        if scenario.tls then TlsFiles.trusting.getSocketFactory.createSocket(host, port)
        else java.net.Socket(host, port)
      Using.resource(open) { socket =>
        socket.setSoTimeout(5000)
        val request = s"${scenario.method} ${scenario.path} HTTP/1.1\r\nHost: $host\r\nConnection: close\r\n\r\n"
        socket.getOutputStream.write(request.getBytes(StandardCharsets.US_ASCII))
        // Read to the end of the stream: a server keeping the connection open runs into the timeout
        val answer = new String(socket.getInputStream.readAllBytes(), StandardCharsets.ISO_8859_1)
        val head = answer.takeWhile(_ != '\r').trim
        val saysClose =
          answer.linesIterator.takeWhile(_.nonEmpty).exists(_.toLowerCase.matches("connection:\\s*close\\s*"))
        if !head.startsWith("HTTP/1.1 200") then Some(s"with Connection: close, '$head' instead of 200")
        else if !saysClose then Some("the answer to Connection: close does not say Connection: close")
        else None
      }
    }.fold(e => Some(s"the connection stayed open after Connection: close, or failed: $e"), identity)

  private def request(host: String, port: Int, scenario: Scenario): Option[String] =
    Try {
      val builder =
        HttpRequest.newBuilder(
          URI.create(s"${scenario.scheme}://$host:$port${scenario.path}")
        ).timeout(Duration.ofSeconds(30))
      scenario.contentType.foreach(builder.header("Content-Type", _))
      scenario.headers.foreach((name, value) => builder.header(name, value))
      val publisher = scenario.body.fold(HttpRequest.BodyPublishers.noBody())(HttpRequest.BodyPublishers.ofByteArray)
      val response =
        (if scenario.tls then tlsClient else client)
          .send(builder.method(scenario.method, publisher).build(), HttpResponse.BodyHandlers.ofByteArray())
      if response.statusCode != 200 then Some(s"status ${response.statusCode} instead of 200")
      else scenario.check(response.body)
    }.fold(e => Some(s"no answer: $e"), identity)
