package rapier.perf.common

import com.sun.net.httpserver.HttpServer

import java.net.InetSocketAddress
import java.nio.charset.StandardCharsets

/**
 * A second, tiny HTTP server in each server JVM, on its own port: the runner asks it for [[ProcessStats]] at the
 * start and end of a measured window. It is called twice per test, so its own cost is noise.
 */
final class ControlServer:
  private val http = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 4)
  http.createContext(
    "/stats",
    exchange =>
      val body = ProcessStats.now().toJson.getBytes(StandardCharsets.UTF_8)
      exchange.getResponseHeaders.set("Content-Type", "application/json")
      exchange.sendResponseHeaders(200, body.length)
      exchange.getResponseBody.write(body)
      exchange.close()
  )
  http.setExecutor(null)
  http.start()

  def port: Int = http.getAddress.getPort
  def stop(): Unit = http.stop(0)
