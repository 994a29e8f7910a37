package rapier.perf

import java.net.ServerSocket
import java.nio.charset.StandardCharsets
import scala.util.Using

class ProbeTest extends munit.FunSuite:
  private val scenario = Scenarios.byName("SimpleGetNewConnection").get

  /** A server answering `ok 4` to every request on one connection; `closing` says whether it honours a close. */
  private def answering(closing: Boolean)(f: Int => Unit): Unit =
    Using.resource(ServerSocket(0)) { listener =>
      val serving = Thread(() =>
        // The probe's plain request first, then the one asking for a close
        for i <- 1 to 2 do
          Using.resource(listener.accept()) { socket =>
            socket.getInputStream.read(new Array[Byte](4096))
            val close = if closing then "Connection: close\r\n" else ""
            val answer = s"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n${close}\r\nok 4"
            socket.getOutputStream.write(answer.getBytes(StandardCharsets.US_ASCII))
            if i == 2 && !closing then Thread.sleep(6000)
          }
      )
      serving.setDaemon(true)
      serving.start()
      f(listener.getLocalPort)
    }

  test("a scenario of new connections is probed for the server's close, and one left open is reported"):
    answering(closing = true)(port => assertEquals(Probe.check("127.0.0.1", port, scenario), None))
    answering(closing = false) { port =>
      val problem = Probe.check("127.0.0.1", port, scenario)
      assert(problem.exists(_.contains("Connection: close")), problem)
    }
