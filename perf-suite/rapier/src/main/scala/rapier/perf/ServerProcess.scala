package rapier.perf

import com.github.plokhotnyuk.jsoniter_scala.core.{JsonValueCodec, readFromString}
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import rapier.perf.common.{ProcessStats, ServerMain}

import java.io.{BufferedReader, InputStreamReader}
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets
import java.time.Duration
import java.util.concurrent.{LinkedBlockingQueue, TimeUnit}
import scala.util.Try

/** A server of the catalogue running in a JVM of its own, pinned to the server CPUs. */
final class ServerProcess private (
    process: Process,
    val pid: Long,
    val port: Int,
    controlPort: Int,
    output: ServerProcess.Tail
):
  /** The server's own account of its allocations, collections and CPU time. */
  def stats(): Option[ProcessStats] =
    Try {
      val request = HttpRequest.newBuilder(
        URI.create(s"http://127.0.0.1:$controlPort/stats")
      ).timeout(Duration.ofSeconds(10)).build()
      readFromString[ProcessStats](ServerProcess.client.send(request, HttpResponse.BodyHandlers.ofString()).body)(using
        ServerProcess.statsCodec
      )
    }.toOption

  def cpuSeconds: Option[Double] = ProcFs.cpuSeconds(pid)
  def peakRssMiB: Option[Double] = ProcFs.peakRssMiB(pid)
  def recentOutput: String = output.text

  /** Stops the server: closing its input asks it to stop; it is killed if it doesn't within 10 s. */
  def stop(): Unit =
    Try(process.getOutputStream.close())
    if !process.waitFor(10, TimeUnit.SECONDS) then
      process.destroy()
      if !process.waitFor(5, TimeUnit.SECONDS) then process.destroyForcibly().waitFor(5, TimeUnit.SECONDS)

object ServerProcess:
  private val client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
  private val statsCodec: JsonValueCodec[ProcessStats] = JsonCodecMaker.make

  /** The last lines a server printed, for error messages. */
  final class Tail:
    private val lines = java.util.concurrent.ConcurrentLinkedDeque[String]()
    def add(line: String): Unit =
      lines.addLast(line)
      while lines.size > 40 do lines.pollFirst()
    def text: String = String.join("\n", lines)

  /** The JVM command of a server; pinned to `cpus` when given. */
  def command(
      java: String,
      jvmOptions: List[String],
      classpath: String,
      spec: ServerSpec,
      port: Int,
      threads: Int,
      cpus: Option[List[Int]],
      stopOnEof: Boolean
  ): List[String] =
    cpus.toList.flatMap(c => List("taskset", "-c", c.mkString(","))) ++
      (java :: jvmOptions) ++
      List(
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
        stopOnEof.toString
      )

  /** Starts a server and waits until it says it is ready; or says why it could not start. */
  def start(command: List[String], timeoutSeconds: Int = 60): Either[String, ServerProcess] =
    val process = ProcessBuilder(command*).redirectErrorStream(true).start()
    val tail = Tail()
    val ready = LinkedBlockingQueue[String]()
    val reader = Thread(
      () =>
        val in = BufferedReader(InputStreamReader(process.getInputStream, StandardCharsets.UTF_8))
        Iterator.continually(in.readLine()).takeWhile(_ != null).foreach { line =>
          if line.startsWith(ServerMain.ReadyPrefix) then ready.put(line) else tail.add(line)
        }
      ,
      "perf-server-output"
    )
    reader.setDaemon(true)
    reader.start()
    Option(ready.poll(timeoutSeconds, TimeUnit.SECONDS)) match
      case None =>
        process.destroyForcibly()
        Left(
          s"the server did not start within $timeoutSeconds s: ${tail.text.linesIterator.toList.takeRight(8).mkString(" | ")}"
        )
      case Some(line) =>
        val fields = line.split(' ').drop(1).flatMap(_.split('=') match
          case Array(k, v) => Some(k -> v);
          case _ => None).toMap
        (
          fields.get("port").flatMap(_.toIntOption),
          fields.get("control").flatMap(_.toIntOption),
          fields.get("pid").flatMap(_.toLongOption)
        ) match
          case (Some(port), Some(control), Some(pid)) => Right(ServerProcess(process, pid, port, control, tail))
          case _ =>
            process.destroyForcibly()
            Left(s"unreadable ready line: $line")

/**
 * One request of a scenario, checked for the right answer before the server is loaded: a server that answers
 * wrongly is never measured.
 */
object Probe:
  private val client =
    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build()

  /** None when the answer is right; otherwise what is wrong with it. */
  def check(host: String, port: Int, scenario: Scenario): Option[String] =
    Try {
      val builder =
        HttpRequest.newBuilder(URI.create(s"http://$host:$port${scenario.path}")).timeout(Duration.ofSeconds(30))
      scenario.contentType.foreach(builder.header("Content-Type", _))
      val publisher = scenario.body.fold(HttpRequest.BodyPublishers.noBody())(HttpRequest.BodyPublishers.ofByteArray)
      val response =
        client.send(builder.method(scenario.method, publisher).build(), HttpResponse.BodyHandlers.ofByteArray())
      if response.statusCode != 200 then Some(s"status ${response.statusCode} instead of 200")
      else scenario.check(response.body)
    }.fold(e => Some(s"no answer: $e"), identity)
