package rapier.examples

import java.io.File
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.util.Try

/**
 * The README's "Running the examples" commands, run as a newcomer runs them, from the repository's root: each
 * `./sbt "examples/runMain …"` line is started as written, and each `curl` line after it is run as written once the
 * server listens, its output compared with the answer the README gives after the `#`.
 */
class ReadmeCommandsTest extends munit.FunSuite:
  override val munitTimeout = scala.concurrent.duration.Duration(15, "min")

  private val root = Path.of("..").toAbsolutePath.normalize

  /** A server command and the requests the README sends it, each with the answer it shows. */
  final case class Session(start: String, requests: List[(String, String)])

  private def sessions: List[Session] =
    val readme = Files.readString(root.resolve("README.md"))
    val block = """(?s)## Running the examples\n.*?```sh\n(.*?)```""".r.findFirstMatchIn(readme).map(_.group(1))
    assert(block.isDefined, "the README has no sh block under '## Running the examples'")
    val lines = block.get.linesIterator.map(_.trim).filter(_.nonEmpty).toList
    lines.foldLeft(List.empty[Session]) { (acc, line) =>
      val (command, comment) = line.indexOf(" #") match
        case -1 => (line, "")
        case i => (line.substring(0, i).trim, line.substring(i + 2).trim)
      if command.startsWith("./sbt ") then Session(command, Nil) :: acc
      else if command.startsWith("curl ") then
        assert(acc.nonEmpty, s"a request before any server: $line")
        acc.head.copy(requests = acc.head.requests :+ (command -> comment)) :: acc.tail
      else fail(s"a line the test doesn't know how to run: $line")
    }.reverse

  private def listening(port: Int): Boolean =
    Try {
      val s = Socket()
      try s.connect(InetSocketAddress("127.0.0.1", port), 500)
      finally s.close()
    }.isSuccess

  /** A request's command as written, from the repository's root; what it prints on its standard output is the answer. */
  private def shell(command: String): Process =
    ProcessBuilder("bash", "-c", command).directory(root.toFile).redirectError(ProcessBuilder.Redirect.DISCARD).start()

  private def output(p: Process): String = String(p.getInputStream.readAllBytes(), StandardCharsets.UTF_8)

  /** Stops a server command and everything it started (sbt, then the JVM it forked): its whole process group. */
  private def stopGroup(p: Process): Unit =
    Try(ProcessBuilder("kill", "-TERM", "--", s"-${p.pid}").start().waitFor())
    if !p.waitFor(20, TimeUnit.SECONDS) then
      Try(ProcessBuilder("kill", "-KILL", "--", s"-${p.pid}").start().waitFor())
      p.waitFor(5, TimeUnit.SECONDS)

  test("the README shows how to run both examples"):
    val starts = sessions.map(_.start)
    assert(starts.exists(_.contains("runHelloWorld")), starts.toString)
    assert(starts.exists(_.contains("runBooks")), starts.toString)
    assert(sessions.forall(_.requests.nonEmpty), "every example is shown answering a request")

  test("the README's example commands run as written and answer as it says"):
    assume(!listening(CommandLine.DefaultPort), s"port ${CommandLine.DefaultPort} is taken on this machine")
    for session <- sessions do
      val log = Files.createTempFile("readme-command", ".log").toFile
      val server = ProcessBuilder("setsid", "bash", "-c", session.start)
        .directory(root.toFile)
        .redirectErrorStream(true)
        .redirectOutput(log)
        .redirectInput(ProcessBuilder.Redirect.from(File("/dev/null")))
        .start()
      try
        val deadline = System.nanoTime + TimeUnit.MINUTES.toNanos(5)
        while !listening(CommandLine.DefaultPort) && server.isAlive && System.nanoTime < deadline do Thread.sleep(250)
        assert(
          listening(CommandLine.DefaultPort),
          s"${session.start} did not start serving on ${CommandLine.DefaultPort}:\n${Files.readString(log.toPath).takeRight(2000)}"
        )
        for (request, expected) <- session.requests do
          val p = shell(request)
          val answer = output(p).trim
          assert(p.waitFor(60, TimeUnit.SECONDS))
          assertEquals(answer, expected, s"$request (after ${session.start})")
      finally
        stopGroup(server)
        val deadline = System.nanoTime + TimeUnit.SECONDS.toNanos(30)
        while listening(CommandLine.DefaultPort) && System.nanoTime < deadline do Thread.sleep(250)
        log.delete()

  test("a bad port is a readable message, not a stack trace"):
    assertEquals(CommandLine.parsePort(Nil), Right(8080))
    assertEquals(CommandLine.parsePort(List("9000")), Right(9000))
    assertEquals(CommandLine.parsePort(List("http")), Left("a port is a number from 0 to 65535, not 'http'"))
    assertEquals(CommandLine.parsePort(List("70000")), Left("a port is a number from 0 to 65535, not '70000'"))
    assertEquals(CommandLine.parsePort(List("1", "2")), Left("one argument at most (a port), not 2: 1 2"))
