package rapier.perf

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * The `./perf` commands the README shows, as written. Each is read as `./perf` reads it, and must be accepted and plan
 * what its comment says; the quick ones run for real: `--list`, `--help`, and `serve`, whose server is started and
 * checked on every scenario it serves. The long runs (minutes to hours) are planned here and run by hand: their
 * results are the committed runs under docs/perf/, each with its command.
 */
class ReadmeCommandsTest extends munit.FunSuite:
  override def munitTimeout: Duration = 3.minutes

  private val readme = Files.readString(Path.of("../../README.md"))

  /** The commands of the sh block under the suite's heading, each split into its arguments as a shell would. */
  private val commands: List[(String, List[String])] =
    val block = """(?s)## The performance suite\n.*?```sh\n(.*?)```""".r.findFirstMatchIn(readme).map(_.group(1))
    block.toList.flatMap(_.linesIterator).map(_.takeWhile(_ != '#').trim).filter(_.nonEmpty).map { line =>
      assert(line.startsWith("./perf"), line)
      line -> words(line.stripPrefix("./perf").trim)
    }.filterNot(_._2.headOption.contains("ws"))

  /** The WebSocket study's commands, read by its own parser. */
  private val studies: List[(String, List[String])] =
    """(?s)## The performance suite\n.*?```sh\n(.*?)```""".r.findFirstMatchIn(readme).toList
      .flatMap(_.group(1).linesIterator).map(_.takeWhile(_ != '#').trim).filter(_.startsWith("./perf ws"))
      .map(line => line -> words(line.stripPrefix("./perf ws").trim))

  /** Words as a shell splits them, with single quotes holding a word together. */
  private def words(line: String): List[String] =
    """'([^']*)'|(\S+)""".r.findAllMatchIn(line).map(m => Option(m.group(1)).getOrElse(m.group(2))).toList

  private def parsed(args: List[String]): Command =
    Cli.parse(args).fold(why => fail(s"./perf ${args.mkString(" ")}: $why"), identity)

  test("the README shows the suite's commands, and every one is accepted"):
    assert(commands.size >= 8, commands.map(_._1))
    for (line, args) <- commands do parsed(args)

  test("the long runs plan what the README says they do"):
    def plan(args: List[String]) = parsed(args) match
      case Command.Run(o) => Runner(o, Files.createTempDirectory("readme"), Map.empty, _ => ()).plan
      case other => fail(s"not a run: $other")
    val default = plan(Nil)
    assertEquals(default.map(_.scenario.name).distinct, List("SimpleGet", "PostBytes"))
    assertEquals(
      default.head.entries.map(_.label),
      List("netty.Vanilla", "netty.future.Rapier", "netty.Vanilla (A/A)")
    )
    val everything = commands.find(_._1.contains("-u 1,64")).map(c => plan(c._2)).getOrElse(fail("no full run"))
    assertEquals(everything.flatMap(_.entries.map(_.server)).distinct.size, Catalogue.servers.size)
    assertEquals(everything.map(_.scenario.name).distinct.size, Scenarios.all.size)
    assertEquals(everything.map(_.users).distinct, List(1, 64))
    val baseline = commands.find(_._1.contains("--baseline")).getOrElse(fail("no baseline command"))
    val file = baseline._2.dropWhile(_ != "--baseline").drop(1).head
    assert(RunResults.fromJson(Files.readAllBytes(Path.of("../..", file))).isRight, file)

  test("the WebSocket study's command is accepted, and a small study runs: every user answered, every meter read"):
    assert(studies.nonEmpty, "the README shows no ./perf ws command")
    for (line, args) <- studies do assert(ws.WsStudy.parse(args).isRight, line)
    val out = Files.createTempDirectory("ws-study")
    val small =
      ws.WsStudy.Options(users = 4, requests = 5, intervalMillis = 20, warmupRequests = 5, rounds = 1, out = out)
    assertEquals(ws.WsStudy.run(small, "test", Main.classpaths), 0)
    val results = Files.readString(out.resolve("results.json"))
    assertEquals("\"server\":".r.findAllMatchIn(results).size, 3, results)
    assertEquals(""""failures":0""".r.findAllMatchIn(results).size, 3, results)
    assertEquals(""""client":\{"count":20,""".r.findAllMatchIn(results).size, 3, results)
    assert(!results.contains("\"serverHiccups\":{}"), results)
    val readme = Files.readString(out.resolve("README.md"))
    assert(readme.contains("| netty.future.Rapier | 1 | application |"), readme)
    assert("""\| netty.Vanilla \(A/A\) \| \d+\.\d\d \[""".r.findFirstIn(readme).isDefined, readme)

  test("the SSE study runs on each backend's twin and Rapier: every user gets its events"):
    assert(studies.exists(_._2.containsSlice(List("--path", "/sse/ts"))), "the README shows no SSE study")
    val out = Files.createTempDirectory("sse-study")
    val servers = List(
      "netty.Vanilla",
      "netty.future.Rapier",
      "vertx.Vanilla",
      "vertx.future.Rapier",
      "pekko.Vanilla",
      "pekko.future.Rapier",
      "http4s.Vanilla",
      "http4s.cats.Rapier"
    )
    val small =
      ws.WsStudy.Options(servers, "/sse/ts", users = 3, requests = 4, warmupRequests = 2, rounds = 1, out = out)
    assertEquals(ws.WsStudy.run(small, "test", Main.classpaths), 0)
    val results = Files.readString(out.resolve("results.json"))
    assertEquals("\"server\":".r.findAllMatchIn(results).size, servers.size + 1, results)
    assertEquals(""""failures":0""".r.findAllMatchIn(results).size, servers.size + 1, results)
    assertEquals(""""client":\{"count":12,""".r.findAllMatchIn(results).size, servers.size + 1, results)
    assert(Files.readString(out.resolve("README.md")).startsWith("# SSE study: /sse/ts"))

  test("--list and --help run"):
    for (_, args) <- commands if args == List("--list") || args.contains("--help") do assertEquals(Main.run(args), 0)

  test("serve starts the server it names, which answers every scenario it serves"):
    val (line, args) = commands.find(_._2.headOption.contains("serve")).getOrElse(fail("no serve command"))
    parsed(args) match
      case Command.Serve(name, port) =>
        val spec = Catalogue.byName(name).get
        val java = ProcessHandle.current.info.command.orElse("java")
        val command = ServerProcess.command(
          java,
          List("-Xmx512m"),
          Main.classpaths(spec.side),
          spec,
          port,
          1,
          None,
          stopOnEof = true
        )
        val server = ServerProcess.start(command).fold(why => fail(s"$line: $why"), identity)
        try
          assertEquals(server.port, port)
          for scenario <- Scenarios.all.filter(_.servable(spec)) do
            assertEquals(Probe.check("127.0.0.1", port, scenario), None, scenario.name)
        finally server.stop()
      case other => fail(s"$line is not serve: $other")
