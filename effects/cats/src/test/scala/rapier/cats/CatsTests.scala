package rapier.cats

import cats.effect.{IO, Resource}
import fs2.{Chunk, Stream}
import rapier.*
import rapier.model.StatusCode
import rapier.server.*
import rapier.server.interceptor.ExceptionHandler
import rapier.testkit.*

import java.util.concurrent.atomic.AtomicBoolean
import java.util.zip.CRC32
import scala.concurrent.duration.*

/**
 * What a cats-effect backend must get right beyond the shared kit, with `IO` logic and fs2 bodies: logic that answers
 * at once or later, fails, blocks, times out or is cancelled with its client; streamed bodies both ways; a graceful
 * stop with fibers in flight. A backend runs it with a class of a few lines, as it runs the kit.
 */
abstract class CatsTests extends EffectChecks:
  def server: CatsKit.CatsTestServer

  def withIOServer[T](endpoints: ServerEndpoint[IO]*)(body: Target => T): T =
    val running = server.startIO(endpoints.toList, TestServerConfig())
    try body(Target(running))
    finally running.stop()

  private def text(path: String)(logic: IO[String]): ServerEndpoint[IO] =
    endpoint.get.in(path).out(stringBody).serverLogicSuccess[IO](_ => logic)

  test("client: IO calls, typed errors as Left, fs2 streams sent and received"):
    import _root_.cats.effect.unsafe.implicits.global
    import rapier.client.*
    val greet = endpoint.get.in("greet" / path[String]("name")).errorOut(stringBody).out(stringBody)
    val up = endpoint.post.in("up").in(fs2Body[IO]).out(stringBody)
    val down = endpoint.get.in("down" / path[Int]("n")).out(fs2Body[IO])
    def bytes(n: Int): Stream[IO, Byte] = Stream.range(0, n).map(_.toByte).covary[IO].chunkN(4096).unchunks
    withIOServer(
      greet.serverLogic[IO](n => IO.pure(if n == "x" then Left("no x") else Right(s"hi $n"))),
      up.serverLogicSuccess[IO](s => s.chunks.map(_.size.toLong).compile.foldMonoid.map(_.toString)),
      down.serverLogicSuccess[IO](n => IO.pure(bytes(n)))
    ) { t =>
      val base = s"http://localhost:${t.port}"
      val g = greet.client[IO](base)
      assertEquals(g("ada").unsafeRunSync(), Right("hi ada"))
      assertEquals(g("x").unsafeRunSync(), Left("no x"))
      assertEquals(up.client[IO](base)(bytes(300001)).unsafeRunSync(), Right("300001"))
      val got = down.client[IO](base)(123457).flatMap(r => r.toOption.get.compile.toVector).unsafeRunSync()
      assertEquals(got, Vector.tabulate(123457)(_.toByte))
    }

  test("client: an fs2 WebSocket's call answers with a Pipe; the server's close stops the caller's stream"):
    import _root_.cats.effect.unsafe.implicits.global
    import rapier.client.*
    val shout = endpoint.get.in("shout").out(fs2WebSocketBody[IO, String, String])
    val two = endpoint.get.in("two").out(fs2WebSocketBody[IO, String, String])
    val stopped = java.util.concurrent.CountDownLatch(1)
    withIOServer(
      shout.serverLogicSuccess[IO](_ => IO.pure(_.map(_.toUpperCase))),
      two.serverLogicSuccess[IO](_ => IO.pure(_.take(2)))
    ) { t =>
      val base = s"http://localhost:${t.port}"
      // The caller's stream stays open until the answers are in: its end would close the WebSocket
      val said = Stream("a", "b", "c").covary[IO] ++ Stream.never[IO]
      val answers = shout.client[IO](base)(()).flatMap(_.toOption.get(said).take(3).compile.toList)
      assertEquals(answers.unsafeRunSync(), List("A", "B", "C"))
      val endless = Stream.iterate(0)(_ + 1).map(_.toString).covary[IO].onFinalize(IO(stopped.countDown()))
      val got = two.client[IO](base)(()).flatMap(_.toOption.get(endless).compile.toList)
      assertEquals(got.unsafeRunSync(), List("0", "1"))
      assert(stopped.await(10, java.util.concurrent.TimeUnit.SECONDS), "the caller's stream was never stopped")
    }

  test("client: an IO call cancelled while it waits abandons its exchange: the server sees its client go"):
    import _root_.cats.effect.unsafe.implicits.global
    import rapier.client.*
    val started = java.util.concurrent.CountDownLatch(1)
    val gone = java.util.concurrent.CountDownLatch(1)
    val slow = endpoint.get.in("slow").out(stringBody)
    val logic = slow.serverLogicSuccess[IO](_ =>
      (IO.cede *> IO(started.countDown()) *> IO.never[String]).onCancel(IO(gone.countDown()))
    )
    withIOServer(logic) { t =>
      val call = slow.client[IO](s"http://localhost:${t.port}")(())
      val fiber = call.start.unsafeRunSync()
      assert(started.await(10, java.util.concurrent.TimeUnit.SECONDS), "the logic never started")
      fiber.cancel.unsafeRunSync()
      assert(gone.await(10, java.util.concurrent.TimeUnit.SECONDS), "the server's logic was not cancelled")
    }

  test("client: Server-Sent Events from an fs2 stream read back as an fs2 stream, comments skipped"):
    import _root_.cats.effect.unsafe.implicits.global
    import rapier.client.*
    val sent = List(
      ServerSentEvent(data = Some("a\nb"), event = Some("note"), id = Some("1")),
      ServerSentEvent(retry = Some(10)),
      ServerSentEvent.data("last")
    )
    val e = endpoint.get.in("events").out(fs2SseBody[IO](20.millis))
    val paced = Stream.emits(sent).covary[IO].metered(60.millis)
    withIOServer(e.serverLogicSuccess[IO](_ => IO.pure(paced))) { t =>
      val got = e.client[IO](s"http://localhost:${t.port}")(()).flatMap(_.toOption.get.compile.toList)
      assertEquals(got.unsafeRunSync(), sent)
    }

  test("IO logic answers at once, after an async boundary, and from IO.blocking"):
    val now = text("now")(IO.pure("now"))
    val delayed = text("delayed")(IO.delay("delayed"))
    val later = text("later")(IO.sleep(20.millis).as("later"))
    val blocking = text("blocking")(IO.blocking { Thread.sleep(20); "blocking" })
    withIOServer(now, delayed, later, blocking) { t =>
      for path <- List("now", "delayed", "later", "blocking") do assertEquals(t.get(s"/$path").body, path)
    }

  test("a failing IO is a 500 whose body names a request id, never the cause"):
    val failing = text("fail")(IO.raiseError(IllegalStateException("secret detail")))
    val failingLater = text("failLater")(IO.sleep(5.millis) *> IO.raiseError(IllegalStateException("secret detail")))
    withIOServer(failing, failingLater) { t =>
      for path <- List("/fail", "/failLater") do
        val r = t.get(path)
        assertEquals(r.status, 500)
        assert(!r.body.contains("secret"), r.body)
    }

  test("an output that fails to encode after IO.pure goes to the exception handler"):
    val handler: ExceptionHandler = (_, _, e, _) => ServerResponse.text(StatusCode.ServiceUnavailable, e.getMessage)
    val unencodable = endpoint.get
      .in("unencodable")
      .out(stringBody.map[Int](_.toInt)(n => throw IllegalArgumentException(s"no encoding for $n")))
      .serverLogicSuccess[IO](_ => IO.pure(7))
    val config = TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withExceptionHandler(handler))
    val running = server.startIO(List(unencodable), config)
    try
      val r = Target(running).get("/unencodable")
      assertEquals((r.status, r.body), (503, "no encoding for 7"))
    finally running.stop()

  test("a timeout in the logic answers as the logic says"):
    val timed = text("timed")(IO.sleep(10.seconds).as("late").timeoutTo(30.millis, IO.pure("timed out")))
    val timedOut = text("timedOut")(IO.sleep(10.seconds).as("late").timeout(30.millis))
    withIOServer(timed, timedOut) { t =>
      assertEquals(t.get("/timed").body, "timed out")
      assertEquals(t.get("/timedOut").status, 500)
    }

  test("a client that goes away cancels its request's fiber, and the finalizers and Resources around it run"):
    // Past an async boundary, the logic runs as a fiber on the runtime: what can be cancelled. Each finalizer is in
    // place before `started` is set, so that a cancellation just after it still runs it.
    val started = AtomicBoolean()
    val cancelled = AtomicBoolean()
    val hanging = text("hang")((IO.cede *> IO(started.set(true)) *> IO.never[String]).onCancel(IO(cancelled.set(true))))
    withIOServer(hanging)(checkClientGoneEndsLogic(_, "/hang", started, cancelled))
    val used = AtomicBoolean()
    val released = AtomicBoolean()
    val holding = text("hold")(
      Resource.make(IO.unit)(_ => IO(released.set(true))).use(_ => IO.cede *> IO(used.set(true)) *> IO.never[String])
    )
    withIOServer(holding)(checkClientGoneEndsLogic(_, "/hold", used, released))

  test("an upload's file is deleted when its client goes away and its fiber is cancelled"):
    val saved = java.util.concurrent.atomic.AtomicReference[java.nio.file.Path | Null]()
    val upload = endpoint.post.in("upload").in(fileBody).out(stringBody).serverLogicSuccess[IO] { file =>
      IO.cede *> IO(saved.set(file)) *> IO.never[String]
    }
    withIOServer(upload)(checkClientGoneDeletesUpload(_, "/upload", saved))

  test("a blocking call by mistake in IO holds only its own request"):
    val mistake = text("mistake")(IO { Thread.sleep(300); "done" })
    val quick = text("quick")(IO.pure("quick"))
    withIOServer(mistake, quick)(checkBlockingMistake)

  test("an fs2 request body is read as it arrives, whole and in order"):
    val count = endpoint.post.in("count").in(fs2Body[IO]).out(stringBody).serverLogicSuccess[IO] { body =>
      body.chunks.compile.fold((0L, CRC32())) { case ((n, c), chunk) =>
        c.update(chunk.toArray)
        (n + chunk.size, c)
      }.map((n, c) => s"$n ${c.getValue}")
    }
    withIOServer(count)(checkStreamedUpload(_, "/count"))

  test(
    "an fs2 reader waiting past the body deadline for a stalled client: 408, the reader ended; slow logic is served"
  ):
    val ended = AtomicBoolean()
    val count = endpoint.post.in("count").in(fs2Body[IO]).in(query[Int]("wait")).out(stringBody)
      .serverLogicSuccess[IO] { (body, wait) =>
        IO.sleep(wait.millis) *> body.compile.count.map(_.toString).guarantee(IO(ended.set(true)))
      }
    val running = server.startIO(List(count), TestServerConfig(bodyReadTimeout = 500.millis))
    try
      val t = Target(running)
      val c = t.raw()
      try
        c.send("POST /count?wait=0 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n").send("0123456789")
        assertEquals(c.readResponse().status, 408)
        eventually(ended.get, "the reader's stream ended")
      finally c.close()
      // Logic that waits longer than the deadline before it reads is not a slow client
      val r = t.post("/count?wait=900", "x" * 5000)
      assertEquals((r.status, r.body), (200, "5000"))
    finally running.stop()

  test("an fs2 response body streams, chunked, and an fs2 echo returns what was sent"):
    val numbers = endpoint.get.in("numbers").in(query[Int]("n")).out(fs2Body[IO]).serverLogicSuccess[IO] { n =>
      IO.pure(Stream.range(0, n).covary[IO].map(i => s"$i\n").through(fs2.text.utf8.encode))
    }
    val echo = endpoint.post.in("echo").in(fs2Body[IO]).out(fs2Body[IO]).serverLogicSuccess[IO](IO.pure)
    withIOServer(numbers, echo)(checkStreamedResponses)

  test("an fs2 response body's failure after its start cuts the response; before it, a 500"):
    val cut = endpoint.get.in("cut").out(fs2Body[IO]).serverLogicSuccess[IO] { _ =>
      IO.pure(Stream.chunk(Chunk.array("abc".getBytes)) ++ Stream.raiseError[IO](IllegalStateException("broken")))
    }
    withIOServer(cut)(checkCutResponse(_, "/cut"))

  test("a client gone mid-response stops an fs2 stream and runs its finalizers"):
    val finalized = AtomicBoolean()
    val endless = endpoint.get.in("endless").out(fs2Body[IO]).serverLogicSuccess[IO] { _ =>
      val chunk = Chunk.array(new Array[Byte](64 * 1024))
      IO.pure(Stream.chunk(chunk).repeat.covary[IO].onFinalize(IO(finalized.set(true))))
    }
    withIOServer(endless)(checkEndlessResponseStops(_, "/endless", finalized))

  test("a graceful stop lets the fibers in flight finish"):
    val started = AtomicBoolean()
    val slow = text("slow")(IO(started.set(true)) *> IO.sleep(300.millis).as("finished"))
    checkGracefulStop(server.startIO(List(slow), TestServerConfig(shutdownTimeout = Some(5.seconds))), started)

  test("a stop cancels the fibers still running past its timeout, and returns once their finalizers have run"):
    val started = AtomicBoolean()
    val cancelled = AtomicBoolean()
    val stuck = text("stuck")(
      (IO.cede *> IO(started.set(true)) *> IO.never[String]).onCancel(IO.sleep(100.millis) *> IO(cancelled.set(true)))
    )
    checkStopEndsStuckLogic(
      server.startIO(List(stuck), TestServerConfig(shutdownTimeout = Some(1.second))),
      started,
      cancelled
    )

  // WebSockets whose logic is an fs2 pipe
  import WebSocketFrames.{Continuation, Text, frame, readFrame}

  private def pipe(path: String)(p: fs2.Pipe[IO, String, String]): ServerEndpoint[IO] =
    endpoint.get.in("ws" / path).out(fs2WebSocketBody[IO, String, String]).serverLogicSuccess[IO](_ => IO.pure(p))

  test("an fs2 pipe answers each message in order, across async boundaries; its stream ending closes with 1000"):
    val upper = pipe("upper")(_.evalMap(m => IO.sleep(2.millis).as(m.toUpperCase)).take(5))
    withIOServer(upper)(checkFiveInCapitals)

  test("an fs2 pipe that reads slowly gets the messages sent just before the client's close, then its input's end"):
    val heard = java.util.concurrent.ConcurrentLinkedQueue[String]()
    val ended = AtomicBoolean(false)
    val slow =
      pipe("slow")(_.evalMap(m => IO.sleep(30.millis) >> IO(heard.add(m))).drain.onFinalize(IO(ended.set(true))))
    withIOServer(slow)(checkMessagesBeforeClose(_, heard, ended))

  test("an fs2 pipe that drops its input still has pings answered; one that fails closes with 1011"):
    val first = pipe("first")(in => in.head.map(m => s"first: $m") ++ Stream.never[IO])
    val failing =
      pipe("failing")(_.evalMap(m => if m == "boom" then IO.raiseError(IllegalStateException(m)) else IO.pure(m)))
    withIOServer(first, failing) { t =>
      checkDroppedInputKeepsPings(t)
      answersThenCloses(t, "failing", "fine" -> "fine", "boom", 1011)
    }

  test("a client gone interrupts an fs2 pipe and runs its finalizers; messages it can't decode close with 1007"):
    val finalized = AtomicBoolean(false)
    val held = pipe("held")(in => in.onFinalize(IO(finalized.set(true))))
    val numbers = endpoint.get
      .in("ws" / "numbers")
      .out(fs2WebSocketBody[IO, Int, Int](using summon, numberCodec, numberCodec))
      .serverLogicSuccess[IO](_ => IO.pure(_.map(_ * 2)))
    withIOServer(held, numbers) { t =>
      checkClientGoneEndsPipe(t, finalized)
      answersThenCloses(t, "numbers", "21" -> "42", "twenty", 1007)
    }

  test("an fs2 pipe's WebSocket joins fragments, pings among them answered, and closes with 1009 past its limit"):
    val finalized = AtomicBoolean(false)
    val small = endpoint.get
      .in("ws" / "small")
      .out(fs2WebSocketBody[IO, String, String].withMaxMessageSize(16))
      .serverLogicSuccess[IO](_ => IO.pure(_.onFinalize(IO(finalized.set(true)))))
    withIOServer(small)(checkFragmentsAndLimit(_, finalized))

  test("an fs2 pipe's WebSocket closes with 1007 at a fragment that isn't UTF-8, before the message ends"):
    withIOServer(pipe("echo")(identity)) { t =>
      val c = openWebSocket(t, "echo")
      try
        c.send(frame(Text, "fine"))
        assertEquals(readFrame(c).text, "fine")
        c.send(frame(Text, "caf", fin = false))
        c.send(frame(Continuation, Array[Byte](0xc3.toByte, 0x28), fin = false))
        closedWith(c, 1007)
      finally c.close()
    }

  test("an fs2 pipe's WebSocket idle past its timeout closes with 1001, and a server's stop closes one with 1001"):
    val idle = endpoint.get
      .in("ws" / "idle")
      .out(fs2WebSocketBody[IO, String, String].withIdleTimeout(300.millis))
      .serverLogicSuccess[IO](_ => IO.pure(identity))
    withIOServer(idle) { t =>
      val c = openWebSocket(t, "idle")
      try
        c.send(frame(Text, "hi"))
        assertEquals(readFrame(c).text, "hi")
        closedWith(c, 1001)
      finally c.close()
    }
    checkStopClosesWebSocket(server.startIO(
      List(pipe("echo")(identity)),
      TestServerConfig(shutdownTimeout = Some(5.seconds))
    ))

  private val numberCodec: WebSocketCodec[Int] = WebSocketCodec.text(
    Codec.Mapped(
      Codec.byteArray,
      (b: Array[Byte]) =>
        new String(b, java.nio.charset.StandardCharsets.UTF_8).toIntOption match
          case Some(n) => DecodeResult.Value(n)
          case None => DecodeResult.Mismatch("a number")
      ,
      (n: Int) => n.toString.getBytes(java.nio.charset.StandardCharsets.UTF_8),
      summon[Schema[Int]],
      rapier.model.MediaType.TextPlainUtf8
    )
  )

  test("Server-Sent Events from an fs2 stream without keep-alive: no comment however long it is idle"):
    val events = endpoint.get
      .in("sse")
      .out(fs2SseBody[IO](keepAlive = scala.concurrent.duration.Duration.Inf))
      .serverLogicSuccess[IO](_ =>
        IO.pure(Stream(ServerSentEvent.data("first")) ++ Stream.sleep_[IO](300.millis) ++
          Stream(ServerSentEvent.data("x")))
      )
    withIOServer(events) { t =>
      assertEquals(t.get("/sse").body, "data: first\n\ndata: x\n\n")
    }

  test("Server-Sent Events from an fs2 stream, with keep-alive comments while it is idle"):
    val events = endpoint.get
      .in("sse")
      .out(fs2SseBody[IO](keepAlive = 100.millis))
      .serverLogicSuccess[IO](_ =>
        IO.pure(
          Stream(ServerSentEvent.data("first")) ++ Stream.sleep_[IO](1.second) ++
            Stream(ServerSentEvent(data = Some("second"), id = Some("2")))
        )
      )
    withIOServer(events)(checkSseKeepAlive)
