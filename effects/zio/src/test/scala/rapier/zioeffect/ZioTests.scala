package rapier.zioeffect

import rapier.*
import rapier.server.*
import rapier.testkit.*
import zio.stream.ZStream
import zio.{Chunk, Task, ZIO, durationInt as _}

import java.util.concurrent.atomic.AtomicBoolean
import java.util.zip.CRC32
import scala.concurrent.duration.*

/**
 * What a ZIO backend must get right beyond the shared kit, with ZIO logic and `ZStream` bodies: logic that answers at
 * once or later, fails with its error output, dies, blocks, times out or is interrupted with its client; streamed
 * bodies both ways; Server-Sent Events; a graceful stop with fibers in flight. A backend runs it with a class of a few
 * lines, as it runs the kit.
 */
abstract class ZioTests extends EffectChecks:
  def server: ZioKit.ZioTestServer

  def withZioServer[T](endpoints: ServerEndpoint[Task]*)(body: Target => T): T =
    val running = server.startZio(endpoints.toList, TestServerConfig())
    try body(Target(running))
    finally running.stop()

  private def text(path: String)(logic: Task[String]): ServerEndpoint[Task] =
    endpoint.get.in(path).out(stringBody).serverLogicSuccess[Task](_ => logic)

  private def millis(n: Long) = zio.Duration.fromMillis(n)

  test("client: ZIO calls, typed errors as Left, ZStreams sent and received"):
    import rapier.client.*
    val greet = endpoint.get.in("greet" / path[String]("name")).errorOut(stringBody).out(stringBody)
    val up = endpoint.post.in("up").in(zioStreamBody).out(stringBody)
    val down = endpoint.get.in("down" / path[Int]("n")).out(zioStreamBody)
    def bytes(n: Int): ZStream[Any, Throwable, Byte] = ZStream.range(0, n).map(_.toByte).rechunk(4096)
    withZioServer(
      greet.zServerLogic(n => if n == "x" then ZIO.fail("no x") else ZIO.succeed(s"hi $n")),
      up.serverLogicSuccess[Task](s => s.runCount.map(_.toString)),
      down.serverLogicSuccess[Task](n => ZIO.succeed(bytes(n)))
    ) { t =>
      import ZioKit.run
      val base = s"http://localhost:${t.port}"
      val g = greet.client[Task](base)
      assertEquals(run(g("ada")), Right("hi ada"))
      assertEquals(run(g("x")), Left("no x"))
      assertEquals(run(up.client[Task](base)(bytes(300001))), Right("300001"))
      val got = run(down.client[Task](base)(123457).flatMap(r => r.toOption.get.runCollect))
      assertEquals(got, Chunk.fromIterable(Vector.tabulate(123457)(_.toByte)))
    }

  test("client: a ZIO WebSocket's call answers with a ZStream pipe; the server's close stops the caller's stream"):
    import rapier.client.*
    val shout = endpoint.get.in("shout").out(zioWebSocketBody[String, String])
    val two = endpoint.get.in("two").out(zioWebSocketBody[String, String])
    val stopped = java.util.concurrent.CountDownLatch(1)
    withZioServer(
      shout.serverLogicSuccess[Task](_ => ZIO.succeed(_.map(_.toUpperCase))),
      two.serverLogicSuccess[Task](_ => ZIO.succeed(_.take(2)))
    ) { t =>
      import ZioKit.run
      val base = s"http://localhost:${t.port}"
      // The caller's stream stays open until the answers are in: its end would close the WebSocket
      val said = ZStream("a", "b", "c") ++ ZStream.never
      val answers = run(shout.client[Task](base)(()).flatMap(_.toOption.get(said).take(3).runCollect))
      assertEquals(answers.toList, List("A", "B", "C"))
      val endless = ZStream.iterate(0)(_ + 1).map(_.toString).ensuring(ZIO.succeed(stopped.countDown()))
      val got = run(two.client[Task](base)(()).flatMap(_.toOption.get(endless).runCollect))
      assertEquals(got.toList, List("0", "1"))
      assert(stopped.await(10, java.util.concurrent.TimeUnit.SECONDS), "the caller's stream was never stopped")
    }

  test("client: a ZIO call interrupted while it waits abandons its exchange: the server sees its client go"):
    import rapier.client.*
    val started = java.util.concurrent.CountDownLatch(1)
    val gone = java.util.concurrent.CountDownLatch(1)
    val slow = endpoint.get.in("slow").out(stringBody)
    val logic = slow.serverLogicSuccess[Task](_ =>
      (ZIO.yieldNow *> ZIO.succeed(started.countDown()) *> ZIO.never).onInterrupt(ZIO.succeed(gone.countDown()))
    )
    withZioServer(logic) { t =>
      import ZioKit.run
      val call = slow.client[Task](s"http://localhost:${t.port}")(())
      val fiber = run(call.forkDaemon)
      assert(started.await(10, java.util.concurrent.TimeUnit.SECONDS), "the logic never started")
      run(fiber.interrupt)
      assert(gone.await(10, java.util.concurrent.TimeUnit.SECONDS), "the server's logic was not interrupted")
    }

  test("client: Server-Sent Events from a ZStream read back as a ZStream, comments skipped"):
    import rapier.client.*
    val sent = List(
      ServerSentEvent(data = Some("a\nb"), event = Some("note"), id = Some("1")),
      ServerSentEvent(retry = Some(10)),
      ServerSentEvent.data("last")
    )
    val e = endpoint.get.in("events").out(zioSseBody(scala.concurrent.duration.FiniteDuration(20, "ms")))
    val paced = ZStream.fromIterable(sent).schedule(zio.Schedule.spaced(millis(60)))
    withZioServer(e.serverLogicSuccess[Task](_ => ZIO.succeed(paced))) { t =>
      import ZioKit.run
      val got = run(e.client[Task](s"http://localhost:${t.port}")(()).flatMap(_.toOption.get.runCollect))
      assertEquals(got.toList, sent)
    }

  test("ZIO logic answers at once, after an async boundary, and from ZIO.attemptBlocking"):
    val now = text("now")(ZIO.succeed("now"))
    val later = text("later")(ZIO.sleep(millis(20)).as("later"))
    val blocking = text("blocking")(ZIO.attemptBlocking { Thread.sleep(20); "blocking" })
    val yielded = text("yielded")(ZIO.yieldNow.as("yielded"))
    withZioServer(now, later, blocking, yielded) { t =>
      for path <- List("now", "later", "blocking", "yielded") do assertEquals(t.get(s"/$path").body, path)
    }

  test("logic that needs a service is given the environment the server was started in, at once or after a boundary"):
    val hello = endpoint.get
      .in("hello" / path[String]("name"))
      .out(stringBody)
      .zServerLogicNeeding[ZioTests.Greeter](name => ZIO.serviceWithZIO[ZioTests.Greeter](_.greet(name)))
    val later = endpoint.get
      .in("later" / path[String]("name"))
      .out(stringBody)
      .zServerLogicNeeding[ZioTests.Greeter](name =>
        ZIO.sleep(millis(5)) *> ZIO.serviceWithZIO[ZioTests.Greeter](_.greet(name))
      )
    val mine = endpoint.get
      .in("mine")
      .securityIn(header[String]("X-Key"))
      .out(stringBody)
      .errorOut(statusCode(model.StatusCode.Unauthorized).and(stringBody))
      .zServerSecurityLogicNeeding[ZioTests.Greeter, String](key =>
        if key == "open" then ZIO.serviceWithZIO[ZioTests.Greeter](_.greet("key")) else ZIO.fail("no such key")
      )
      .zServerLogic(principal => _ => ZIO.serviceWithZIO[ZioTests.Greeter](_.greet(principal)))
    val plain = text("plain")(ZIO.succeed("plain")).widen[ZioTests.Greeter]
    val greeter = ZioTests.Greeter("Hello")
    val running = server.startNeeding(List(hello, later, mine, plain), zio.ZEnvironment(greeter), TestServerConfig())
    try
      val t = Target(running)
      assertEquals(t.get("/hello/ada").body, "Hello, ada")
      assertEquals(t.get("/later/bob").body, "Hello, bob")
      assertEquals(t.get("/mine", "X-Key" -> "open").body, "Hello, Hello, key")
      assertEquals(t.get("/mine", "X-Key" -> "shut").status, 401)
      assertEquals(t.get("/plain").body, "plain")
    finally running.stop()

  test("a ZIO failure is the endpoint's error output; its value the output"):
    val parity = endpoint.get
      .in("parity")
      .in(query[Int]("n"))
      .out(stringBody)
      .errorOut(statusCode(model.StatusCode.BadRequest).and(stringBody))
      .zServerLogic(n => if n % 2 == 0 then ZIO.succeed(s"$n is even") else ZIO.fail(s"$n is odd"))
    withZioServer(parity) { t =>
      assertEquals(t.get("/parity?n=4").body, "4 is even")
      val odd = t.get("/parity?n=3")
      assertEquals((odd.status, odd.body), (400, "3 is odd"))
    }

  test("security logic in ZIO runs first: its failure is answered before the main logic"):
    val ran = AtomicBoolean(false)
    val secret = endpoint.get
      .in("secret")
      .securityIn(header[String]("X-Key"))
      .out(stringBody)
      .errorOut(statusCode(model.StatusCode.Unauthorized).and(stringBody))
      .zServerSecurityLogic[String](key => if key == "open" then ZIO.succeed("alice") else ZIO.fail("no such key"))
      .zServerLogic(user => _ => ZIO.succeed { ran.set(true); s"hello $user" })
    withZioServer(secret) { t =>
      val refused = t.get("/secret", "X-Key" -> "wrong")
      assertEquals((refused.status, refused.body), (401, "no such key"))
      assert(!ran.get, "the main logic ran after a refused key")
      assertEquals(t.get("/secret", "X-Key" -> "open").body, "hello alice")
    }

  test("a failing or dying ZIO is a 500 whose body names a request id, never the cause"):
    val failing = text("fail")(ZIO.fail(IllegalStateException("secret detail")))
    val dying = text("die")(ZIO.succeed(throw IllegalStateException("secret detail")))
    val dyingLater = text("dieLater")(ZIO.sleep(millis(5)) *> ZIO.die(IllegalStateException("secret detail")))
    withZioServer(failing, dying, dyingLater) { t =>
      for path <- List("/fail", "/die", "/dieLater") do
        val r = t.get(path)
        assertEquals(r.status, 500, path)
        assert(!r.body.contains("secret"), r.body)
    }

  test("a timeout in the logic answers as the logic says"):
    val timed = text("timed")(ZIO.sleep(millis(10000)).as("late").timeout(millis(30)).map(_.getOrElse("timed out")))
    val timedOut = text("timedOut")(
      ZIO.sleep(millis(10000)).as("late").timeoutFail(IllegalStateException("too slow"))(millis(30))
    )
    withZioServer(timed, timedOut) { t =>
      assertEquals(t.get("/timed").body, "timed out")
      assertEquals(t.get("/timedOut").status, 500)
    }

  test("a client that goes away interrupts its request's fiber, and the finalizers and scopes around it run"):
    // Each finalizer is in place before `started` is set, so that an interruption just after it still runs it
    val started = AtomicBoolean()
    val interrupted = AtomicBoolean()
    val hanging =
      text("hang")(
        (ZIO.yieldNow *> ZIO.succeed(started.set(true)) *> ZIO.never).onInterrupt(ZIO.succeed(interrupted.set(true)))
      )
    withZioServer(hanging)(checkClientGoneEndsLogic(_, "/hang", started, interrupted))
    val used = AtomicBoolean()
    val released = AtomicBoolean()
    val holding = text("hold")(ZIO.scoped(
      ZIO.acquireRelease(ZIO.unit)(_ => ZIO.succeed(released.set(true))) *> ZIO.yieldNow *>
        ZIO.succeed(used.set(true)) *> ZIO.never
    ))
    withZioServer(holding)(checkClientGoneEndsLogic(_, "/hold", used, released))

  test("an upload's file is deleted when its client goes away and its fiber is interrupted"):
    val saved = java.util.concurrent.atomic.AtomicReference[java.nio.file.Path | Null]()
    val upload = endpoint.post.in("upload").in(fileBody).out(stringBody).serverLogicSuccess[Task] { file =>
      ZIO.yieldNow *> ZIO.succeed(saved.set(file)) *> ZIO.never
    }
    withZioServer(upload)(checkClientGoneDeletesUpload(_, "/upload", saved))

  test("a blocking call by mistake in ZIO.succeed holds only its own request"):
    val mistake = text("mistake")(ZIO.succeed { Thread.sleep(300); "done" })
    val quick = text("quick")(ZIO.succeed("quick"))
    withZioServer(mistake, quick)(checkBlockingMistake)

  test("a ZStream request body is read as it arrives, whole and in order"):
    val count = endpoint.post.in("count").in(zioStreamBody).out(stringBody).serverLogicSuccess[Task] { body =>
      body.chunks.runFold((0L, CRC32())) { case ((n, c), chunk) =>
        c.update(chunk.toArray)
        (n + chunk.size, c)
      }.map((n, c) => s"$n ${c.getValue}")
    }
    withZioServer(count)(checkStreamedUpload(_, "/count"))

  test("a ZStream request body past the limit fails the stream, and the request is answered 413"):
    val count = endpoint.post.in("count").in(zioStreamBody).out(stringBody).serverLogicSuccess[Task] { body =>
      body.runCount.map(_.toString)
    }
    val running = server.startZio(List(count), TestServerConfig(maxStreamedBodySize = 1024 * 1024))
    try
      val t = Target(running)
      assertEquals(t.post("/count", new Array[Byte](1024 * 1024)).body, (1024 * 1024).toString)
      assertEquals(t.post("/count", new Array[Byte](1024 * 1024 + 1)).status, 413)
    finally running.stop()

  test("a ZStream response body streams, chunked, and a ZStream echo returns what was sent"):
    val numbers = endpoint.get.in("numbers").in(query[Int]("n")).out(zioStreamBody).serverLogicSuccess[Task] { n =>
      ZIO.succeed(ZStream.range(0, n).map(i => s"$i\n").via(zio.stream.ZPipeline.utf8Encode))
    }
    val echo = endpoint.post.in("echo").in(zioStreamBody).out(zioStreamBody).serverLogicSuccess[Task](ZIO.succeed(_))
    withZioServer(numbers, echo)(checkStreamedResponses)

  test("a ZStream response body's failure after its start cuts the response"):
    val cut = endpoint.get.in("cut").out(zioStreamBody).serverLogicSuccess[Task] { _ =>
      ZIO.succeed(ZStream.fromChunk(Chunk.fromArray("abc".getBytes)) ++ ZStream.fail(IllegalStateException("broken")))
    }
    withZioServer(cut)(checkCutResponse(_, "/cut"))

  test("a client gone mid-response stops a ZStream and runs its finalizers"):
    val finalized = AtomicBoolean()
    val endless = endpoint.get.in("endless").out(zioStreamBody).serverLogicSuccess[Task] { _ =>
      val chunk = Chunk.fromArray(new Array[Byte](64 * 1024))
      ZIO.succeed(ZStream.fromChunk(chunk).forever.ensuring(ZIO.succeed(finalized.set(true))))
    }
    withZioServer(endless)(checkEndlessResponseStops(_, "/endless", finalized))

  test("a graceful stop lets the fibers in flight finish"):
    val started = AtomicBoolean()
    val slow = text("slow")(ZIO.succeed(started.set(true)) *> ZIO.sleep(millis(300)).as("finished"))
    checkGracefulStop(server.startZio(List(slow), TestServerConfig(shutdownTimeout = Some(5.seconds))), started)

  test("a stop interrupts the fibers still running past its timeout, and returns once their finalizers have run"):
    val started = AtomicBoolean()
    val interrupted = AtomicBoolean()
    val stuck = text("stuck")(
      (ZIO.succeed(started.set(true)) *> ZIO.never).onInterrupt(ZIO.sleep(millis(100)) *>
        ZIO.succeed(interrupted.set(true)))
    )
    checkStopEndsStuckLogic(
      server.startZio(List(stuck), TestServerConfig(shutdownTimeout = Some(1.second))),
      started,
      interrupted
    )

  test("Server-Sent Events from a ZStream, with keep-alive comments while it is idle"):
    val events = endpoint.get
      .in("sse")
      .out(zioSseBody(keepAlive = 100.millis))
      .serverLogicSuccess[Task](_ =>
        ZIO.succeed(
          ZStream(ServerSentEvent.data("first")) ++ ZStream.fromZIO(ZIO.sleep(millis(1000))).drain ++
            ZStream(ServerSentEvent(data = Some("second"), id = Some("2")))
        )
      )
    val quiet = endpoint.get
      .in("quiet")
      .out(zioSseBody(keepAlive = Duration.Inf))
      .serverLogicSuccess[Task](_ =>
        ZIO.succeed(
          ZStream(ServerSentEvent.data("first")) ++ ZStream.fromZIO(ZIO.sleep(millis(300))).drain ++
            ZStream(ServerSentEvent.data("x"))
        )
      )
    withZioServer(events, quiet) { t =>
      checkSseKeepAlive(t)
      assertEquals(t.get("/quiet").body, "data: first\n\ndata: x\n\n")
    }

  // WebSockets whose logic is a ZIO pipe

  private def pipe(path: String)(p: ZioPipe[String, String]): ServerEndpoint[Task] =
    endpoint.get.in("ws" / path).out(zioWebSocketBody[String, String]).serverLogicSuccess[Task](_ => ZIO.succeed(p))

  test("a ZIO pipe answers each message in order, across async boundaries; its stream ending closes with 1000"):
    val upper = pipe("upper")(_.mapZIO(m => ZIO.sleep(millis(2)).as(m.toUpperCase)).take(5))
    withZioServer(upper)(checkFiveInCapitals)

  test("a ZIO pipe that reads slowly gets the messages sent just before the client's close, then its input's end"):
    val heard = java.util.concurrent.ConcurrentLinkedQueue[String]()
    val ended = AtomicBoolean(false)
    val slow = pipe("slow")(
      _.mapZIO(m => ZIO.sleep(millis(30)) *> ZIO.succeed(heard.add(m))).drain.ensuring(ZIO.succeed(ended.set(true)))
    )
    withZioServer(slow)(checkMessagesBeforeClose(_, heard, ended))

  test("a ZIO pipe that drops its input still has pings answered; one that fails closes with 1011"):
    val first = pipe("first")(in => in.take(1).map(m => s"first: $m") ++ ZStream.never)
    val failing =
      pipe("failing")(_.mapZIO(m => if m == "boom" then ZIO.fail(IllegalStateException(m)) else ZIO.succeed(m)))
    withZioServer(first, failing) { t =>
      checkDroppedInputKeepsPings(t)
      answersThenCloses(t, "failing", "fine" -> "fine", "boom", 1011)
    }

  test("a client gone interrupts a ZIO pipe, its finalizers run; a stop closes it with 1001 and waits for the pipe"):
    val finalized = AtomicBoolean(false)
    val held = pipe("held")(in => in.ensuring(ZIO.succeed(finalized.set(true))))
    withZioServer(held)(checkClientGoneEndsPipe(_, finalized))
    // The stop returns once the pipe it ended has run its finalizers
    val stopped = AtomicBoolean(false)
    checkStopClosesWebSocket(server.startZio(
      List(pipe("echo")(_.ensuring(ZIO.sleep(millis(100)) *> ZIO.succeed(stopped.set(true))))),
      TestServerConfig(shutdownTimeout = Some(5.seconds))
    ))
    assert(stopped.get, "the stop returned before the pipe's finalizer had run")

  test("a ZIO pipe's WebSocket joins fragments and closes with 1009 past its limit, its pipe interrupted"):
    val finalized = AtomicBoolean(false)
    val small = endpoint.get
      .in("ws" / "small")
      .out(zioWebSocketBody[String, String].withMaxMessageSize(16))
      .serverLogicSuccess[Task](_ => ZIO.succeed(_.ensuring(ZIO.succeed(finalized.set(true)))))
    withZioServer(small)(checkFragmentsAndLimit(_, finalized))

object ZioTests:
  /** A service the logic of the environment's test needs. */
  final case class Greeter(greeting: String):
    def greet(name: String): zio.UIO[String] = ZIO.succeed(s"$greeting, $name")
