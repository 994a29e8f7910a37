package rapier.perf

import java.nio.file.Paths

class CliTest extends munit.FunSuite:
  private def run(args: String*): RunOptions = Cli.parse(args.toList) match
    case Right(Command.Run(o)) => o
    case other => fail(s"not a run: $other")

  private def error(args: String*): String = Cli.parse(args.toList) match
    case Left(message) => message
    case other => fail(s"accepted: $other")

  test("no arguments: Rapier on Netty against the bare handler, SimpleGet and PostBytes, 5 rounds of 2 s"):
    val o = run()
    assertEquals(o.servers, List("netty.future.Rapier"))
    assertEquals(o.scenarios, List("SimpleGet", "PostBytes"))
    assertEquals(o.users, List(64))
    assertEquals((o.warmupSeconds, o.rounds, o.durationSeconds, o.starts), (5, 5, 2, 1))

  test("every option, short and long"):
    val o = run(
      "-s",
      "netty.*,*.Vanilla",
      "-m",
      "*",
      "-u",
      "1,128",
      "-d",
      "12",
      "--warmup",
      "7",
      "-r",
      "3",
      "--starts",
      "2",
      "--out",
      "x",
      "--jvm-opts",
      "-Xmx2g  -XX:+UseParallelGC",
      "--server-cpus",
      "0-1",
      "--load-cpus",
      "2,3",
      "--baseline",
      "b.json",
      "--max-regression",
      "7.5"
    )
    assertEquals(o.servers, List("netty.*", "*.Vanilla"))
    assertEquals(o.scenarios, List("*"))
    assertEquals(o.users, List(1, 128))
    assertEquals((o.durationSeconds, o.warmupSeconds, o.rounds, o.starts), (12, 7, 3, 2))
    assertEquals(o.out, Some(Paths.get("x")))
    assertEquals(o.jvmOptions, List("-Xmx2g", "-XX:+UseParallelGC"))
    assertEquals((o.serverCpus, o.loadCpus), (Some("0-1"), Some("2,3")))
    assertEquals((o.baseline, o.maxRegression), (Some(Paths.get("b.json")), 7.5))
    assertEquals(run("--servers", "netty.Vanilla", "--scenarios", "PostJson", "--users", "8").users, List(8))

  test("the fixed rate: auto unless given, a number, or off; and profiles"):
    assertEquals((run().rate, run().rateGiven, run().profile), (FixedRate.Auto, false, false))
    assertEquals(run("--rate", "25000").rate, FixedRate.PerSecond(25000))
    assertEquals((run("--rate", "auto").rate, run("--rate", "auto").rateGiven), (FixedRate.Auto, true))
    assertEquals(run("--rate", "off").rate, FixedRate.Off)
    assert(run("--profile", "-m", "SimpleGet").profile)

  test("a target instead of the catalogue"):
    assertEquals(run("--target", "example.org:8080").target, Some(("example.org", 8080)))
    assertEquals(run("--target", "[::1]:9000").target, Some(("[::1]", 9000)))

  test("--quick shortens what was not given explicitly"):
    val q = run("--quick")
    assertEquals(
      (q.servers, q.scenarios, q.users, q.durationSeconds, q.warmupSeconds, q.rounds),
      (List("*"), List("*"), List(16), 1, 1, 2)
    )
    val explicit = run("--quick", "-m", "SimpleGet,SimpleGetMultiRoute,PostBytes", "-d", "5")
    assertEquals(explicit.scenarios, List("SimpleGet", "SimpleGetMultiRoute", "PostBytes"))
    assertEquals(explicit.durationSeconds, 5)
    assertEquals(explicit.servers, List("*"))

  test("the latency studies' options: messages per user, warm-up, the client's interval and the servers' tick"):
    val o = run()
    assertEquals(
      (o.studyRequests, o.studyWarmupRequests, o.studyIntervalMillis, o.studyTickMillis),
      (100, 100, 100L, 100L)
    )
    val s = run(
      "-m",
      "WebSocketLatency",
      "--requests",
      "300",
      "--warmup-requests",
      "0",
      "--interval-ms",
      "50",
      "--tick-ms",
      "20"
    )
    assertEquals((s.studyRequests, s.studyWarmupRequests, s.studyIntervalMillis, s.studyTickMillis), (300, 0, 50L, 20L))
    val q = run("--quick")
    assertEquals((q.studyRequests, q.studyWarmupRequests), (10, 10))
    assertEquals(error("--requests", "0"), "--requests must be a whole number from 1 to 1000000, not '0'")
    assertEquals(error("--tick-ms", "x"), "--tick-ms must be a whole number from 1 to 60000, not 'x'")
    assertEquals(Main.run(List("ws", "-u", "10")), 2)

  test("the other commands"):
    assertEquals(Cli.parse(List("--list")), Right(Command.ListCatalogue))
    assertEquals(Cli.parse(List("--help")), Right(Command.Help))
    assertEquals(Cli.parse(List("serve", "netty.Vanilla")), Right(Command.Serve("netty.Vanilla", 8080)))
    assertEquals(
      Cli.parse(List("serve", "netty.Vanilla", "--port", "9001")),
      Right(Command.Serve("netty.Vanilla", 9001))
    )
    assertEquals(Cli.parse(List("report", "r.json")), Right(Command.Render(Paths.get("r.json"))))

  test("mistakes are named precisely"):
    assertEquals(error("--bogus"), "unknown option '--bogus' (see ./perf --help)")
    assertEquals(error("-u", "0"), "-u must be a whole number from 1 to 100000, not '0'")
    assertEquals(error("-u", "8,x"), "-u must be a whole number from 1 to 100000, not 'x'")
    assertEquals(error("-d"), "-d needs a value")
    assertEquals(error("-s", "tomcat.*"), "no server matches tomcat.* (see ./perf --list)")
    assertEquals(error("-m", "Nope"), "no scenario matches Nope (see ./perf --list)")
    assertEquals(error("--target", "host"), "--target must be HOST:PORT, not 'host'")
    assertEquals(error("--target", "host:99999"), "a port is from 1 to 65535, not '99999'")
    assertEquals(error("--server-cpus", "zero"), "--server-cpus must be a CPU list such as 0 or 0-3 or 0,2, not 'zero'")
    assertEquals(error("--max-regression", "-1"), "--max-regression must be a percentage, not '-1'")
    assertEquals(error("serve", "nope"), "unknown server 'nope' (see ./perf --list)")
    assertEquals(error("serve", "netty.Vanilla", "--port", "0"), "a port is from 1 to 65535, not '0'")
    assertEquals(error("report"), "report needs one results.json file")
    assertEquals(
      error("--rate", "fast"),
      "--rate must be auto, off or a number of requests per second from 1 to 10000000, not 'fast'"
    )

  test("the command a run records reads back, through a shell, into the arguments it was given"):
    val args = List("-s", "netty.*,vertx.future.Rapier", "--jvm-opts", "-Xms2g -Xmx2g -Xmn64m", "--out", "it's", "")
    val line = Cli.commandLine(args)
    assertEquals(
      line,
      """./perf -s 'netty.*,vertx.future.Rapier' --jvm-opts '-Xms2g -Xmx2g -Xmn64m' --out 'it'\''s' ''"""
    )
    assertEquals(Cli.commandLine(List("-m", "PostStream,GetFile", "-u", "16")), "./perf -m PostStream,GetFile -u 16")
    // What a shell makes of it: each word after `./perf`, one per line
    val words = scala.sys.process
      .Process(Seq("sh", "-c", "set -- " + line.stripPrefix("./perf ") + "; printf '%s\\n' \"$@\""))
      .!!
      .split("\n", -1)
      .toList
      .dropRight(1)
    assertEquals(words, args)

  test("attack: servers required, a count and kinds of its own, a run's options beside them"):
    import rapier.perf.attack.{Attack, Hostile}
    Cli.parse(List("attack", "-s", "pekko.future.Rapier", "--hostile", "500", "--kinds", "announced", "-d", "5")) match
      case Right(Command.Attack(Attack.Options(o, hostile, kinds))) =>
        assertEquals(
          (o.servers, o.durationSeconds, hostile, kinds),
          (List("pekko.future.Rapier"), 5, 500, List(Hostile.Announced))
        )
      case other => fail(s"not an attack: $other")
    Cli.parse(List("attack", "-s", "netty.future.Rapier")) match
      case Right(Command.Attack(Attack.Options(o, hostile, kinds))) =>
        assertEquals((o.durationSeconds, hostile, kinds), (10, 100, Hostile.values.toList))
      case other => fail(s"not an attack: $other")
    assert(Cli.parse(List("attack")).isLeft)
    assert(Cli.parse(List("attack", "-s", "netty.future.Rapier", "--kinds", "nope")).isLeft)
    assert(Cli.parse(List("attack", "-s", "netty.future.Rapier", "--hostile", "0")).isLeft)
