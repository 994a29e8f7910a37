package rapier.netty.sync

import rapier.*
import rapier.netty.NettyServerOptions
import rapier.server.spi.VirtualThreadRunner
import rapier.server.*
import rapier.testkit.*

import java.util.concurrent.atomic.{AtomicBoolean, AtomicReference}
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
class NettySyncServerTests extends ServerTests:
  def server: TestServer = NettySyncTestServer
  override def cannotRun: Option[String] = Jdk.cannotRun

/** What direct-style logic must get right on its virtual threads. */
class NettySyncTests extends ServerTestSupport:
  def server: TestServer = NettySyncTestServer
  override def cannotRun: Option[String] = Jdk.cannotRun

  private def withSyncServer[T](endpoints: ServerEndpoint[Identity]*)(body: Target => T): T =
    val running = NettySyncTestServer.startSync(endpoints.toList, TestServerConfig())
    try body(Target(running))
    finally running.stop()

  private def text(path: String)(logic: => String): ServerEndpoint[Identity] =
    endpoint.get.in(path).out(stringBody).serverLogicSuccess[Identity](_ => logic)

  test("logic runs on a virtual thread, where blocking holds nobody else"):
    // Thread.isVirtual is JDK 21's; the tests compile for 17
    val where = text("where")(if Thread.currentThread.getClass.getName.contains("Virtual") then "virtual" else "other")
    val sleepy = text("sleepy") { Thread.sleep(300); "slept" }
    withSyncServer(where, sleepy) { t =>
      assertEquals(t.get("/where").body, "virtual")
      val slow = Future(t.get("/sleepy").body)(using scala.concurrent.ExecutionContext.global)
      val started = System.nanoTime
      for _ <- 1 to 20 do assertEquals(t.get("/where").body, "virtual")
      assert(System.nanoTime - started < 250_000_000L, "requests waited for a blocked one")
      assertEquals(Await.result(slow, Duration(10, "s")), "slept")
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

  test("a graceful stop lets the requests in flight finish"):
    val started = AtomicBoolean()
    val slow = text("slow") {
      started.set(true)
      Thread.sleep(300)
      "finished"
    }
    val running = NettySyncTestServer.startSync(List(slow), TestServerConfig())
    val answer = AtomicReference[String]("none")
    val client = new Thread(() => answer.set(TestClient(running.port).get("/slow").body))
    try
      client.start()
      eventually(started.get, "the request is in flight")
    finally running.stop()
    client.join(10000)
    assertEquals(answer.get, "finished")

object NettySyncTestServer extends TestServer:
  def name = "netty.sync"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    startSync(endpoints.map(_.mapEffect(awaiting)), config)

  /** A kit endpoint's logic in direct style: its future awaited on the request's virtual thread. */
  private val awaiting: [A] => Future[A] => Identity[A] =
    [A] => (future: Future[A]) => Await.result(future, Duration.Inf)

  def startSync(endpoints: List[ServerEndpoint[Identity]], config: TestServerConfig): RunningServer =
    val options = NettyServerOptions(config.backend, headerReadTimeout = config.headerReadTimeout, eventLoopThreads = 2)
    RunningServer(NettySyncServer(endpoints, options).start())
