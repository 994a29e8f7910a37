package rapier.testkit

import rapier.*
import rapier.server.*

import java.util.concurrent.{CountDownLatch, TimeUnit}
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, Promise}
import scala.jdk.CollectionConverters.*

/** HTTP/1.1 connections: persistence, pipelining, limits, malformed requests, load, shutdown. */
trait ConnectionTests extends ServerTestSupport:
  private given ExecutionContext = ExecutionContext.global

  private val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess(_ => Future.successful("hello"))

  /** Answers after `ms` milliseconds, on another thread. */
  private val slow = endpoint.get.in("slow" / path[Int]("ms")).out(stringBody).serverLogicSuccess { ms =>
    Future { Thread.sleep(ms); s"slept $ms" }
  }

  test("a connection serves request after request"):
    withServer(hello) { t =>
      val c = t.raw()
      try
        for _ <- 1 to 5 do
          c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
          val r = c.readResponse()
          assertEquals(r.body, "hello")
          assertEquals(r.header("Connection"), None)
        assert(!c.closedByServer(200))
      finally c.close()
    }

  test("Connection: close is honoured and announced"):
    withServer(hello) { t =>
      val c = t.raw()
      try
        c.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        val r = c.readResponse()
        assertEquals(r.body, "hello")
        assertEquals(r.header("Connection"), Some("close"))
        assert(c.closedByServer())
      finally c.close()
    }

  test("HTTP/1.0 closes unless asked to keep alive"):
    withServer(hello) { t =>
      val c1 = t.raw()
      try
        c1.send("GET /hello HTTP/1.0\r\n\r\n")
        assertEquals(c1.readResponse().body, "hello")
        assert(c1.closedByServer())
      finally c1.close()
      val c2 = t.raw()
      try
        c2.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        val r = c2.readResponse()
        assertEquals(r.header("Connection"), Some("keep-alive"))
        c2.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        assertEquals(c2.readResponse().body, "hello")
      finally c2.close()
    }

  test("pipelined requests are answered in order, even when the first finishes last"):
    withServer(slow, hello) { t =>
      val c = t.raw()
      try
        c.send(
          "GET /slow/300 HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n" +
            "GET /slow/10 HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assertEquals(c.readResponse().body, "slept 300")
        assertEquals(c.readResponse().body, "hello")
        assertEquals(c.readResponse().body, "slept 10")
        assertEquals(c.readResponse().status, 404)
      finally c.close()
    }

  test("many pipelined requests on one connection all get answers"):
    withServer(hello) { t =>
      val c = t.raw()
      try
        c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n" * 200)
        for _ <- 1 to 200 do assertEquals(c.readResponse().body, "hello")
      finally c.close()
    }

  test(anyStyle("a request line over the limit is a 414")):
    withServerConfig(TestServerConfig(maxInitialLineLength = 1024))(hello) { t =>
      val c = t.raw()
      try
        c.send(s"GET /hello?x=${"a" * 2000} HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse().status, 414)
        assert(c.closedByServer(), "the connection stayed open")
      finally c.close()
    }

  test(anyStyle("a header section over the limit is a 431")):
    withServerConfig(TestServerConfig(maxHeaderSize = 1024))(hello) { t =>
      val headers = (1 to 40).map(i => s"X-H$i: ${"v" * 40}\r\n").mkString
      assertEquals(t.rawExchange(s"GET /hello HTTP/1.1\r\nHost: x\r\n$headers\r\n").status, 431)
    }

  test(anyStyle("a malformed request is a 400 and the connection closes")):
    withServer(hello) { t =>
      val c = t.raw()
      try
        c.send("THIS IS NOT HTTP\r\n\r\n")
        assertEquals(c.readResponse().status, 400)
        assert(c.closedByServer())
      finally c.close()
    }

  test("a malformed request after a good one still gets the good one answered first"):
    withServer(slow) { t =>
      val c = t.raw()
      try
        c.send("GET /slow/100 HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1\r\nContent-Length: nope\r\n\r\n")
        assertEquals(c.readResponse().body, "slept 100")
        assertEquals(c.readResponse().status, 400)
      finally c.close()
    }

  test("concurrent clients are all served"):
    withServer(hello, slow) { t =>
      val all = (1 to 64).map(i => Future(if i % 8 == 0 then t.get("/slow/50").body else t.get("/hello").body))
      val results = Await.result(Future.sequence(all), 30.seconds)
      assertEquals(results.count(_ == "hello"), 56)
      assertEquals(results.count(_ == "slept 50"), 8)
    }

  test("a client that disconnects mid-request leaves the server healthy"):
    withServer(hello, slow) { t =>
      for _ <- 1 to 20 do
        val c = t.raw()
        c.send("POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial")
        c.close()
      val c = t.raw()
      c.send("GET /slow/200 HTTP/1.1\r\nHost: x\r\n\r\n")
      c.close()
      assertEquals(t.get("/hello").body, "hello")
    }

  test("a client that pipelines bodies behind a slow request and leaves: nothing it sent is held"):
    // What a server holds of it, once stopped, the suite's leak check finds (a buffer is reported once collected)
    val echo = endpoint.post.in("echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)
    withServer(slow, echo) { t =>
      for _ <- 1 to 10 do
        val c = t.raw()
        c.send("GET /slow/300 HTTP/1.1\r\nHost: x\r\n\r\n")
        c.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        // Each chunk in a packet of its own, while the slow answer is still to come
        for _ <- 1 to 10 do
          Thread.sleep(2)
          c.send("5\r\nhello\r\n")
        c.close()
      Thread.sleep(400)
      assertEquals(t.post("/echo", "still here").body, "still here")
    }

  test(anyStyle("connections over the limit are closed at once, and service resumes when one closes")):
    withServerConfig(TestServerConfig(maxConnections = 2))(hello) { t =>
      val first = t.raw()
      val second = t.raw()
      try
        for c <- List(first, second) do
          c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
          assertEquals(c.readResponse().body, "hello")
        // Closed at once: over TLS, before its handshake can end
        scala.util.Try(t.raw()) match
          case scala.util.Success(third) =>
            try assert(third.closedByServer(2000), "a third connection was kept open")
            finally third.close()
          case scala.util.Failure(e) => assert(e.isInstanceOf[java.io.IOException] && protocol.tls != null, e)
        first.close()
        // The count drops when the server sees the close: retry briefly
        // (over TLS a connection still over the limit fails its handshake, in `raw()`)
        val served = (1 to 50).exists { _ =>
          val ok = scala.util.Try(t.raw()).toOption.exists { c =>
            try
              scala.util.Try {
                c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                c.readResponse().body
              }.toOption.contains("hello")
            finally c.close()
          }
          if !ok then Thread.sleep(50)
          ok
        }
        assert(served, "no connection was served after one closed")
        second.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(second.readResponse().body, "hello")
      finally
        first.close()
        second.close()
    }

  // A timer of the connection's (its idle timeout's next check) or a table that outlives it would keep the connection,
  // its pipeline and what they reference, for as long as the timer or the table.
  test(anyStyle("a connection closed by either side is let go and its socket closed, with the requests it served")):
    val seen = LetGo()
    val watched = endpoint.get.in("watched").in(extractFromRequest(identity)).out(stringBody).serverLogicSuccess {
      request =>
        seen.watch(request)
        // The peer's address, which a connection keeps once asked (Netty's channel does): a connection held is seen
        seen.watch(request.asInstanceOf[spi.ServerRequest].remoteAddressOrNull)
        Future.successful("seen")
    }
    val connections = 10
    withServer(watched) { t =>
      val before = OpenFiles.sockets()
      for i <- 1 to connections do
        val c = t.raw()
        try
          // Half closed by the server after a Connection: close, half by the client
          val closing = if i % 2 == 0 then "Connection: close\r\n" else ""
          c.send(s"GET /watched HTTP/1.1\r\nHost: x\r\n$closing\r\n")
          assertEquals(c.readResponse().body, "seen")
          if closing.nonEmpty then assert(c.closedByServer(2000), "the server closes after Connection: close")
        finally c.close()
      assertEquals(seen.count, 2 * connections)
      // Both ends are in this JVM: the server's sockets for these connections are closed too, whoever closed first
      eventually(OpenFiles.sockets() <= before, s"${OpenFiles.sockets() - before} sockets more than before")
      eventually(seen.held() == 0L, "the connections' requests let go")
    }

  test(anyStyle("an idle connection is closed after the idle timeout")):
    withServerConfig(TestServerConfig(idleTimeout = 300.millis))(hello) { t =>
      val c = t.raw()
      try
        c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse().body, "hello")
        assert(c.closedByServer(3000))
      finally c.close()
    }

  test("a request in progress is not cut by the idle timeout"):
    withServerConfig(TestServerConfig(idleTimeout = 200.millis))(slow) { t =>
      val c = t.raw()
      try
        c.send("GET /slow/700 HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(c.readResponse().body, "slept 700")
      finally c.close()
    }

  test("stopping lets requests in progress finish, closing their connections afterwards"):
    val started = CountDownLatch(1)
    val release = Promise[String]()
    val held = endpoint.get.in("held").out(stringBody).serverLogicSuccess { _ =>
      started.countDown()
      release.future
    }
    withServerConfig(TestServerConfig(shutdownTimeout = Some(5.seconds)))(held, hello) { t =>
      val idle = t.raw()
      idle.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
      assertEquals(idle.readResponse().body, "hello")
      val busy = t.raw()
      busy.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
      assert(started.await(5, TimeUnit.SECONDS))
      val stopping = Future(t.stop())
      Thread.sleep(200)
      assert(idle.closedByServer(2000), "an idle connection closes at once")
      assert(!stopping.isCompleted, "stop waits for the request in progress")
      release.success("done")
      val r = busy.readResponse()
      assertEquals(r.body, "done")
      assertEquals(r.header("Connection"), Some("close"))
      await(stopping, "the server stops")
      intercept[java.io.IOException](t.raw())
    }

  test("stopping under load: every request accepted gets its whole response, later ones 503 or a refusal"):
    val started = java.util.concurrent.atomic.AtomicInteger()
    val work = endpoint.get.in("work").out(stringBody).serverLogicSuccess { _ =>
      started.incrementAndGet()
      Future { scala.concurrent.blocking(Thread.sleep(20)); "done" * 100 }
    }
    withServerConfig(TestServerConfig(shutdownTimeout = Some(5.seconds)))(work) { t =>
      val outcomes = java.util.concurrent.ConcurrentHashMap[String, java.util.concurrent.atomic.AtomicInteger]()
      def count(outcome: String): Unit =
        outcomes.computeIfAbsent(outcome, _ => java.util.concurrent.atomic.AtomicInteger()).incrementAndGet()
      @volatile var stopping = false
      // 16 clients on their own threads, each sending request after request on a keep-alive connection,
      // reconnecting when it closes.
      val threads = java.util.concurrent.Executors.newFixedThreadPool(16)
      val clientContext = ExecutionContext.fromExecutor(threads)
      val clients = (1 to 16).map { _ =>
        Future {
          var connection: RawHttp | Null = null
          var refused = false
          while !refused do
            if connection == null then
              try connection = t.raw()
              catch
                case _: java.io.IOException =>
                  refused = true
                  count("connection refused")
            if connection != null then
              val c = connection.nn
              val reuse = scala.util.Try(c.send("GET /work HTTP/1.1\r\nHost: x\r\n\r\n").readResponse()) match
                case scala.util.Success(r) if r.status == 200 && r.body == "done" * 100 =>
                  count("200")
                  !r.header("Connection").contains("close")
                case scala.util.Success(r) if r.status == 503 && r.header("Connection").contains("close") =>
                  count("503")
                  false
                case scala.util.Success(r) =>
                  count(s"unexpected ${r.status} ${r.body.length}")
                  refused = true
                  false
                case scala.util.Failure(_) =>
                  count(if stopping then "closed unanswered" else "failed before stop")
                  false
              if !reuse then
                c.close()
                connection = null
          if connection != null then connection.nn.close()
        }(using clientContext)
      }
      Thread.sleep(500)
      stopping = true
      val before = System.nanoTime()
      t.stop()
      val took = (System.nanoTime() - before).nanos
      try Await.result(Future.sequence(clients), 20.seconds)
      finally threads.shutdownNow()
      val seen = outcomes.asScala.view.mapValues(_.get).toMap
      assert(took < 5.seconds, s"stop took $took; $seen")
      assert(seen.getOrElse("200", 0) > 50, s"too little load to test: $seen")
      assertEquals(seen.getOrElse("200", 0), started.get, s"a request whose logic started lost its response: $seen")
      assert(seen.keys.forall(k => Set("200", "503", "connection refused", "closed unanswered")(k)), seen.toString)
      assertEquals(seen.getOrElse("connection refused", 0), 16)
    }

  test("a stopped server has closed every descriptor it opened: its sockets and its event loops' own"):
    assume(OpenFiles.available, "open descriptors are read from /proc/self/fd, which only Linux has")
    // A first server, for what this JVM opens once and keeps (the test client's, a class's jar)
    withServer(hello)(t => assertEquals(t.get("/hello").body, "hello"))
    val before = OpenFiles.all()
    withServer(hello) { t =>
      assertEquals(t.get("/hello").body, "hello")
      val idle = List.fill(3)(t.raw())
      for c <- idle do assertEquals(c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").readResponse().body, "hello")
      t.stop()
      idle.foreach(_.close())
    }
    // Named without their inodes: `socket:` ×3, `anon_inode:[eventpoll]` ×1
    def kept = OpenFiles.all().diff(before).groupMapReduce(_.replaceAll("\\[\\d+\\]", ""))(_ => 1)(_ + _)
    eventually(
      OpenFiles.all().size <= before.size,
      s"the stopped server keeps open ${kept.map((what, n) => s"$what ×$n").mkString(", ")}"
    )

  test("stopping does not wait past the shutdown timeout"):
    val never = endpoint.get.in("never").out(stringBody).serverLogicSuccess(_ => Promise[String]().future)
    withServerConfig(TestServerConfig(shutdownTimeout = Some(300.millis)))(never) { t =>
      val c = t.raw()
      c.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
      Thread.sleep(100)
      val start = System.nanoTime()
      t.stop()
      assert((System.nanoTime() - start).nanos < 5.seconds)
      assert(c.closedByServer(2000))
    }
