package rapier.netty.sync

import rapier.*
import rapier.netty.NettyServerOptions
import rapier.server.spi.{EventLoop, Running, VirtualThreadRunner}
import rapier.server.*
import rapier.testkit.*

import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.{CompletableFuture, CountDownLatch, LinkedBlockingQueue, TimeUnit}
import scala.concurrent.duration.Duration
import scala.concurrent.{Await, Future}

/** Why the direct-style suites can't run here, if they can't. */
private object Jdk:
  val cannotRun: Option[String] =
    Option.when(!VirtualThreadRunner.available)(
      s"virtual threads need JDK 21 or newer, and these tests run on ${System.getProperty("java.version")}: " +
        "the build runs them on a JDK 21+ it finds (RAPIER_JDK21, or under /usr/lib/jvm), and found none"
    )

/** The shared server test kit on Netty in direct style: every kit endpoint's logic blocks on a virtual thread. */
class NettySyncServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = NettySyncTestServer(VirtualThreadStart.OnCarrier)
  override def cannotRun: Option[String] = Jdk.cannotRun
  override def anyStyleTestedIn: Option[String] = Some("rapier.netty.NettyServerTests")

/** The shared kit again, each request's thread started on its connection's loop. */
class NettySyncOnLoopServerTests extends ServerTests:
  def server: TestServer = NettySyncTestServer(VirtualThreadStart.OnLoop)
  override def cannotRun: Option[String] = Jdk.cannotRun
  override def anyStyleTestedIn: Option[String] = Some("rapier.netty.NettyServerTests")

/** What direct-style logic must get right on its virtual threads, wherever they start. */
abstract class NettySyncTests(start: VirtualThreadStart) extends EffectChecks:
  val server: NettySyncTestServer = NettySyncTestServer(start)
  override def cannotRun: Option[String] = Jdk.cannotRun

  protected def withSyncServer[T](endpoints: ServerEndpoint[Identity]*)(body: Target => T): T =
    withSyncServerOn(2)(endpoints*)(body)

  protected def withSyncServerOn[T](loops: Int)(endpoints: ServerEndpoint[Identity]*)(body: Target => T): T =
    val running = server.startSync(endpoints.toList, TestServerConfig(), loops)
    try body(Target(running))
    finally running.stop()

  /** The carrier a virtual thread runs on, from its description (`VirtualThread[#n]/runnable@carrier`). */
  protected def carrier: String = Thread.currentThread.toString.split('@').last

  protected def text(path: String)(logic: => String): ServerEndpoint[Identity] =
    endpoint.get.in(path).out(stringBody).serverLogicSuccess[Identity](_ => logic)

  test("logic runs on a virtual thread, where blocking holds nobody else"):
    // Thread.isVirtual is JDK 21's; the tests compile for 17
    val where = text("where")(if Thread.currentThread.getClass.getName.contains("Virtual") then "virtual" else "other")
    val entered = CountDownLatch(1)
    val release = CountDownLatch(1)
    val blocked = text("blocked") {
      entered.countDown()
      release.await(20, TimeUnit.SECONDS)
      "released"
    }
    withSyncServer(where, blocked) { t =>
      assertEquals(t.get("/where").body, "virtual")
      val slow = Future(t.get("/blocked").body)(using scala.concurrent.ExecutionContext.global)
      assert(entered.await(10, TimeUnit.SECONDS), "the blocking logic started")
      for _ <- 1 to 20 do assertEquals(t.get("/where").body, "virtual")
      // Served while the other request's logic still blocks: it is released only now
      assert(!slow.isCompleted, "requests waited for a blocked one")
      release.countDown()
      assertEquals(Await.result(slow, Duration(10, "s")), "released")
    }

  test("logic that throws is a 500 whose body never names the cause"):
    withSyncServer(text("fail")(throw IllegalStateException("secret detail"))) { t =>
      val r = t.get("/fail")
      assertEquals(r.status, 500)
      assert(!r.body.contains("secret"), r.body)
    }

  test("a client that goes away interrupts its request's thread"):
    val started = AtomicBoolean()
    val interrupted = AtomicBoolean()
    val hanging = text("hang") {
      started.set(true)
      try
        Thread.sleep(30000)
        "late"
      catch
        case e: InterruptedException =>
          interrupted.set(true)
          throw e
    }
    withSyncServer(hanging) { t =>
      val c = t.raw()
      c.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
      eventually(started.get, "the logic started")
      c.close()
      eventually(interrupted.get, "the logic's thread was interrupted")
      assertEquals(t.get("/nowhere").status, 404)
    }

  test("a request body read as an InputStream blocks its virtual thread, not the connection's loop"):
    val count = endpoint.post.in("count").in(inputStreamBody).out(stringBody).serverLogicSuccess[Identity] { in =>
      in.readAllBytes().length.toString
    }
    withSyncServer(count) { t =>
      assertEquals(t.post("/count", new Array[Byte](3 * 1024 * 1024)).body, (3 * 1024 * 1024).toString)
    }

  test("a runner shut down starts no thread: a request it is then given is answered without running its logic"):
    val ran = AtomicBoolean()
    val interpreter = ServerInterpreter(List(text("ran") { ran.set(true); "ran" }))
    val runner = VirtualThreadRunner.create(start)
    runner.shutdown()
    val loop = new EventLoop:
      def inLoop: Boolean = true
      def execute(task: Runnable): Unit = task.run()
    val answer = CompletableFuture[ServerResponse]()
    val request = StubRequest.get("/ran")
    runner.start(interpreter, request, interpreter.routeOrNull(request)) match
      case later: Running => later.onComplete(loop)(r => answer.complete(r))
      case now: ServerResponse => answer.complete(now)
    assertEquals(answer.get(10, TimeUnit.SECONDS).status, 500)
    assert(!ran.get, "the logic ran on a runner that was shut down")

  test("a graceful stop lets the requests in flight finish"):
    val started = AtomicBoolean()
    val slow = text("slow") {
      started.set(true)
      Thread.sleep(300)
      "finished"
    }
    checkGracefulStop(server.startSync(List(slow), TestServerConfig()), started)

  /** Logic that answers "met" once `count` requests have come to it at once, "alone" if they don't within 5 s. */
  protected def meeting(count: Int): ServerEndpoint[Identity] =
    val gathered = CountDownLatch(count)
    text("meet") {
      gathered.countDown()
      if gathered.await(5, TimeUnit.SECONDS) then "met" else "alone"
    }

  test("pipelined requests read at once each run on a thread of their own"):
    withSyncServerOn(1)(meeting(3)) { t =>
      val c = t.raw()
      try
        c.send("GET /meet HTTP/1.1\r\nHost: x\r\n\r\n" * 3)
        for _ <- 1 to 3 do assertEquals(c.readResponse().body, "met")
      finally c.close()
    }

class NettySyncOnCarrierTests extends NettySyncTests(VirtualThreadStart.OnCarrier):
  test("a request's thread runs on the JDK's carriers from the start"):
    withSyncServer(text("carrier")(carrier)) { t =>
      assert(t.get("/carrier").body.startsWith("ForkJoinPool"), t.get("/carrier").body)
    }

  test("the requests of one turn of a loop start together, each on a thread of its own"):
    val interpreter = ServerInterpreter(List(meeting(3)))
    val runner = VirtualThreadRunner.create(VirtualThreadStart.OnCarrier)
    val turn = LinkedBlockingQueue[Runnable]()
    val loopThread = Thread.currentThread
    val loop = new EventLoop:
      def inLoop: Boolean = Thread.currentThread eq loopThread
      def execute(task: Runnable): Unit = turn.add(task)
    val answers = List.fill(3)(CompletableFuture[ServerResponse]())
    try
      for answer <- answers do
        val request = StubRequest.get("/meet")
        runner.start(interpreter, request, interpreter.routeOrNull(request)) match
          case later: Running => later.onComplete(loop)(r => answer.complete(r))
          case now: ServerResponse => fail(s"answered on the loop: $now")
      assertEquals(turn.size, 1, "one task starts the turn's requests")
      assert(answers.forall(!_.isDone), "a request started before the loop's turn ended")
      while !answers.forall(_.isDone) do Option(turn.poll(10, TimeUnit.SECONDS)).getOrElse(fail("no answer")).run()
      assertEquals(answers.map(_.get.bodyText), List("met", "met", "met"))
    finally runner.shutdown()

class NettySyncOnLoopTests extends NettySyncTests(VirtualThreadStart.OnLoop):
  test("a request's thread runs on its connection's loop until it first waits, then on the JDK's carriers"):
    val where = text("where") {
      val first = carrier
      Thread.sleep(1)
      s"$first then $carrier"
    }
    withSyncServer(where) { t =>
      val body = t.get("/where").body
      assert(body.matches("rapier-io-.* then ForkJoinPool.*"), body)
    }

  test("logic that waits leaves its loop to the loop's other connections"):
    val entered = CountDownLatch(1)
    val release = CountDownLatch(1)
    val waiting = text("wait") {
      entered.countDown()
      release.await(20, TimeUnit.SECONDS)
      "waited"
    }
    val quick = text("quick")("quick")
    withSyncServerOn(1)(waiting, quick) { t =>
      val slow = Future(t.get("/wait").body)(using scala.concurrent.ExecutionContext.global)
      assert(entered.await(10, TimeUnit.SECONDS), "the waiting logic started")
      for _ <- 1 to 20 do assertEquals(t.get("/quick").body, "quick")
      // Served while the other request still waits: it is released only now
      assert(!slow.isCompleted, "the loop's other connections waited for a waiting request")
      release.countDown()
      assertEquals(Await.result(slow, Duration(10, "s")), "waited")
    }

  test("a request body read as an InputStream on the loop waits for the loop to deliver it"):
    val count = endpoint.post.in("count").in(inputStreamBody).out(stringBody).serverLogicSuccess[Identity] { in =>
      in.readAllBytes().length.toString
    }
    withSyncServerOn(1)(count) { t =>
      for _ <- 1 to 3 do assertEquals(t.post("/count", new Array[Byte](1024 * 1024)).body, (1024 * 1024).toString)
    }

final class NettySyncTestServer(start: VirtualThreadStart) extends TestServer:
  def name = if start == VirtualThreadStart.OnLoop then "netty.sync (on the loop)" else "netty.sync"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    startSync(endpoints.map(_.mapEffect(awaiting)), config)

  /** A kit endpoint's logic in direct style: its future awaited on the request's virtual thread. */
  private val awaiting: [A] => Future[A] => Identity[A] =
    [A] => (future: Future[A]) => Await.result(future, Duration.Inf)

  def startSync(endpoints: List[ServerEndpoint[Identity]], config: TestServerConfig, loops: Int = 2): RunningServer =
    val options =
      NettyServerOptions(config.backend, headerReadTimeout = config.headerReadTimeout, eventLoopThreads = loops)
    RunningServer(NettySyncServer(endpoints, options, start).start())
