package rapier.perf

import java.nio.file.Files

class PlanTest extends munit.FunSuite:
  private def plan(args: String*) =
    val options = Cli.parse(args.toList) match
      case Right(Command.Run(o)) => o
      case other => fail(s"not a run: $other")
    Runner(options, Files.createTempDirectory("plan"), Map.empty, _ => ()).plan
      .map(g => (g.start, g.scenario.name, g.entries.map(_.label)))

  test("each start of the servers measures each twin with its libraries and its A/A copy together, group by group"):
    assertEquals(
      plan(
        "-s",
        "netty.future.Rapier,netty.future.RapierLog,netty.future.Tapir",
        "-m",
        "SimpleGet,PostBytes",
        "--starts",
        "2"
      ),
      List(1, 2).flatMap(start =>
        List(
          (
            start,
            "SimpleGet",
            List("netty.Vanilla", "netty.future.Rapier", "netty.future.RapierLog", "netty.Vanilla (A/A)")
          ),
          (
            start,
            "PostBytes",
            List("netty.Vanilla", "netty.future.Rapier", "netty.future.RapierLog", "netty.Vanilla (A/A)")
          ),
          (start, "SimpleGet", List("netty41.Vanilla", "netty.future.Tapir", "netty41.Vanilla (A/A)")),
          (start, "PostBytes", List("netty41.Vanilla", "netty.future.Tapir", "netty41.Vanilla (A/A)"))
        )
      )
    )

  test("vanilla servers alone have no A/A copy, and neither has a server run by --target"):
    assertEquals(plan("-s", "netty.Vanilla", "-m", "SimpleGet"), List((1, "SimpleGet", List("netty.Vanilla"))))
    assertEquals(plan("--target", "localhost:8080", "-m", "SimpleGet").map(_._3.size), List(1))
