package rapier.http4s

import cats.effect.IO
import rapier.*
import rapier.cats.{CatsKit, fs2Body}
import rapier.server.*
import rapier.testkit.{RawHttp, TestClient, TestServerConfig}

/**
 * Rapier's standalone Ember server over real sockets: what a request goes through before the logic (bodies read whole
 * or streamed, the limits Rapier holds itself) and what comes back. The shared kit's run on Ember is not in yet.
 */
class Http4sServerSmokeTests extends munit.FunSuite:
  private val hello: ServerEndpoint[IO] =
    endpoint.get.in("hello" / path[String]("name")).out(stringBody).serverLogicSuccess[IO](n => IO.pure(s"hello $n"))
  private val bytes: ServerEndpoint[IO] =
    endpoint.post.in("bytes").in(byteArrayBody).out(stringBody).serverLogicSuccess[IO](b => IO.pure(b.length.toString))
  private val echo: ServerEndpoint[IO] =
    endpoint.post.in("echo").in(fs2Body[IO]).out(fs2Body[IO]).serverLogicSuccess[IO](IO.pure)

  private def withServer[T](config: TestServerConfig)(body: Int => T): T =
    val options = Http4sServerOptions(config.backend.copy(host = "127.0.0.1"))
    val running = CatsKit.running(Http4sServer[IO](List(hello, bytes, echo), options).start())
    try body(running.port)
    finally running.stop()

  test("answers, with the routing's rejections, and takes bodies read whole or streamed both ways"):
    withServer(TestServerConfig()) { port =>
      val c = TestClient(port)
      assertEquals(c.get("/hello/ada").body, "hello ada")
      assertEquals(c.get("/nowhere").status, 404)
      assertEquals(c.get("/bytes").status, 405)
      assertEquals(c.post("/bytes", new Array[Byte](300_000)).body, "300000")
      val big = Array.tabulate[Byte](2_000_000)(i => (i % 251).toByte)
      assertEquals(c.post("/echo", big).bytes.toSeq, big.toSeq)
    }

  test("a body over the limit is a 413 that closes the connection, declared or arriving chunked"):
    withServer(TestServerConfig(maxBodySize = 1000)) { port =>
      val declared = RawHttp(port)
      try
        declared.send("POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
        val r = declared.readResponse()
        assertEquals(r.status, 413)
        assertEquals(r.header("Connection"), Some("close"))
      finally declared.close()
      val chunked = RawHttp(port)
      try
        chunked.send("POST /bytes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunked.send("300\r\n" + "b" * 768 + "\r\n300\r\n" + "b" * 768 + "\r\n0\r\n\r\n")
        assertEquals(chunked.readResponse().status, 413)
      finally chunked.close()
      assertEquals(TestClient(port).post("/bytes", new Array[Byte](1000)).body, "1000")
    }

  test("a request line over its limit is a 414; an expectation other than 100-continue a 417"):
    withServer(TestServerConfig(maxInitialLineLength = 1024)) { port =>
      val c = RawHttp(port)
      try
        c.send(s"GET /hello/ada?x=${"a" * 2000} HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse().status, 414)
      finally c.close()
      val e = RawHttp(port)
      try
        e.send("POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: magic\r\n\r\nx")
        assertEquals(e.readResponse().status, 417)
      finally e.close()
    }
