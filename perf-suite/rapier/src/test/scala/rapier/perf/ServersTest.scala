package rapier.perf

import java.nio.file.Files
import java.util.concurrent.Executors
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.Using

/**
 * Every server of the catalogue, on its own side's class path (the build hands the tests Tapir's), starts and answers
 * each scenario it serves with the right answer, a library's through one route set: a server that drifted from the
 * suite's endpoints, or registers them as its library would not, fails here rather than in the middle of a long run.
 */
class ServersTest extends munit.FunSuite:
  override def munitTimeout: Duration = 2.minutes

  // Two servers are checked at a time, in the catalogue's order: a start is mostly one thread's class loading and
  // compiling, which left the second core idle once the suite's other tests had ended.
  private val pool = Executors.newFixedThreadPool(2)
  private given ExecutionContext = ExecutionContext.fromExecutor(pool)
  private lazy val checks = Catalogue.servers.map(spec => spec.name -> Future(check(spec))).toMap
  override def afterAll(): Unit = pool.shutdownNow()

  for spec <- Catalogue.servers do
    test(s"${spec.name} starts and answers every scenario it serves"):
      Await.result(checks(spec.name), munitTimeout)

  private def check(spec: ServerSpec): Unit =
    val classpath = Main.classpaths.getOrElse(
      spec.side,
      fail(s"no class path for the ${spec.side} side: the build passes it in rapier.perf.classpath.tapir")
    )
    // A server needing a newer JDK than the tests run on (virtual threads) is started on one the suite finds
    val java =
      Jdks.javaFor(spec.java).fold(why => assume(false, s"${spec.name} $why").asInstanceOf[Nothing], identity)
    val command = ServerProcess.command(java, BriefRuns.jvmOptions, classpath, spec, 0, 1, None, stopOnEof = true)
    val server = ServerProcess.start(command).fold(why => fail(s"${spec.name} did not start: $why"), identity)
    try
      val scenarios = Scenarios.all.filter(_.servable(spec))
      // A TLS server serves the TLS scenarios only, each checked over HTTPS against the suite's certificate
      // An HTTP/2 server the HTTP/2 ones, checked over h2c too
      assert(scenarios.size >= (if spec.http2 then 2 else if spec.tls then 3 else 6), scenarios.map(_.name))
      for scenario <- scenarios do assertEquals(Probe.check("127.0.0.1", server.port, scenario), None, scenario.name)
      // /path127 of a library's Multi server is routed once among all its endpoints, never through 128 route sets
      // in turn. A vanilla twin routes as its users write it: http4s's composed routes and pekko-http's concatenated
      // ones are tried one after another.
      if !spec.isVanilla then
        assertEquals(server.routeSets, 1, s"${spec.name} serves its endpoints through ${server.routeSets} route sets")
      // The file GET /pathFile0 sends is written in the server's own temporary directory, which the suite deletes
      if scenarios.exists(_.name == "GetFile") then
        val files = Using.resource(Files.list(server.tmpDir))(_.iterator.asScala.map(_.getFileName.toString).toList)
        assert(files.exists(_.endsWith(".bin")), s"${spec.name}'s ${server.tmpDir} holds $files")
    finally server.stop()
    // Killed, the server deletes nothing as it exits; the suite leaves nothing of it behind either
    assert(!Files.exists(server.tmpDir), s"${spec.name} left ${server.tmpDir}")
