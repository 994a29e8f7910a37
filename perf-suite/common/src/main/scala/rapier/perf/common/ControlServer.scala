package rapier.perf.common

import com.sun.net.httpserver.{HttpExchange, HttpServer}

import java.net.{InetSocketAddress, URLDecoder}
import java.nio.charset.StandardCharsets
import java.nio.file.Path

/**
 * A second, tiny HTTP server in each server JVM, on its own port, for the runner:
 *   - `GET /stats`: [[ProcessStats]], read at the start and end of a measured window;
 *   - `GET /samples`: the [[Sampler]]'s record of CPU, heap and resident memory since the server started;
 *   - `GET /hiccups`: the JVM's [[Hiccups]] since the last call, when started with `--hiccups true` (its thread wakes
 *     a thousand times a second: the other scenarios run without it);
 *   - `POST /profile/start?event=cpu|alloc` and `POST /profile/stop?prefix=PATH&bytes=true|false`: async-profiler
 *     around a window ([[Profiling]]);
 *   - `GET /heap`: the heap live once a full collection has run, in bytes: what the server holds, garbage aside.
 * It is called a few times per test, so its own cost is noise.
 */
final class ControlServer(sampler: Sampler, hiccups: Hiccups | Null):
  private val http = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 4)
  http.createContext("/stats", exchange => ControlServer.answer(exchange, 200, ProcessStats.now().toJson))
  http.createContext("/samples", exchange => ControlServer.answer(exchange, 200, sampler.toJson))
  http.createContext(
    "/heap",
    exchange =>
      System.gc()
      val live = java.lang.management.ManagementFactory.getMemoryMXBean.getHeapMemoryUsage.getUsed
      ControlServer.answer(exchange, 200, s"""{"liveBytes":$live}""")
  )
  http.createContext(
    "/hiccups",
    exchange =>
      if hiccups == null then ControlServer.answer(exchange, 404, "no hiccup meter: start the server with --hiccups")
      else ControlServer.answer(exchange, 200, hiccups.nn.sinceLast())
  )
  http.createContext(
    "/profile/start",
    exchange =>
      val event = ControlServer.query(exchange).getOrElse("event", "cpu")
      ControlServer.reply(exchange, Profiling.start(event).map(_ => "started"))
  )
  http.createContext(
    "/profile/stop",
    exchange =>
      val q = ControlServer.query(exchange)
      val done = q.get("prefix").toRight("stop needs a prefix").flatMap(prefix =>
        Profiling.stop(Path.of(prefix), q.get("bytes").contains("true"))
      )
      ControlServer.reply(exchange, done.map(samples => s"""{"samples":$samples}"""))
  )
  http.setExecutor(null)
  http.start()

  def port: Int = http.getAddress.getPort
  def stop(): Unit = http.stop(0)

private object ControlServer:
  def query(exchange: HttpExchange): Map[String, String] =
    Option(exchange.getRequestURI.getRawQuery).toList.flatMap(_.split('&')).flatMap(_.split("=", 2) match
      case Array(k, v) => Some(k -> URLDecoder.decode(v, StandardCharsets.UTF_8))
      case _ => None).toMap

  def reply(exchange: HttpExchange, result: Either[String, String]): Unit = result match
    case Right(body) => answer(exchange, 200, body)
    case Left(why) => answer(exchange, 500, why)

  def answer(exchange: HttpExchange, status: Int, body: String): Unit =
    val bytes = body.getBytes(StandardCharsets.UTF_8)
    exchange.getResponseHeaders.set("Content-Type", if body.startsWith("{") then "application/json" else "text/plain")
    exchange.sendResponseHeaders(status, bytes.length)
    exchange.getResponseBody.write(bytes)
    exchange.close()
