package rapier.perf

import java.nio.file.Path

class OhaTest extends munit.FunSuite:
  private val output =
    """{
      |  "summary": {"successRate": 1.0, "total": 8.0, "slowest": 0.018, "fastest": 0.00003, "average": 0.0008,
      |    "requestsPerSec": 49983.2, "totalData": 1599940, "sizePerRequest": 4, "sizePerSec": 199928.2},
      |  "latencyPercentiles": {"p10": 0.0001, "p25": 0.0004, "p50": 0.00066, "p75": 0.00087, "p90": 0.00127,
      |    "p95": 0.0016, "p99": 0.0041, "p99.9": 0.0126, "p99.99": 0.0149},
      |  "rps": {"mean": 49983.0},
      |  "statusCodeDistribution": {"200": 399985, "500": 3},
      |  "errorDistribution": {"connection closed": 2}
      |}""".stripMargin

  test("results are read from oha's JSON: every status and error counted, latencies in milliseconds"):
    val r = Oha.parse(output).fold(fail(_), identity)
    assertEquals(r.requests, 399990L)
    assertEquals(r.errors, 5L)
    assertEqualsDouble(r.achievedRate, 49983.2, 1e-9)
    assertEqualsDouble(r.latencyMs.p50, 0.66, 1e-9)
    assertEqualsDouble(r.latencyMs.p9999, 14.9, 1e-9)
    assertEqualsDouble(r.latencyMs.max, 18.0, 1e-9)

  test("output without results says what oha printed instead"):
    val wrong = Oha.parse("error: invalid value 'x' for '-q <QUERY_PER_SECOND>'")
    assert(wrong.left.exists(_.contains("invalid value")), wrong)

  test("the command: pinned, at the rate with latency correction, waiting for requests in flight, with the body"):
    val post = Scenarios.byName("PostBytes").get
    val command = Oha.command("oha", "http://h:1/pathBytes0", 64, 5, 12345.6, post, Some(Path.of("/b")), Some(List(1)))
    assertEquals(
      command,
      List(
        "taskset",
        "-c",
        "1",
        "oha",
        "--no-tui",
        "--output-format",
        "json",
        "-z",
        "5s",
        "-c",
        "64",
        "-q",
        "12346",
        "--latency-correction",
        "-w",
        "-m",
        "POST",
        "-T",
        "application/octet-stream",
        "-D",
        "/b",
        "http://h:1/pathBytes0"
      )
    )
    val closing = Scenarios.byName("SimpleGetNewConnection").get
    val fresh = Oha.command("oha", "http://h:1/path0/4", 64, 5, 100, closing, None, None)
    assert(fresh.contains("--disable-keepalive"), fresh)
    assert(!command.contains("--disable-keepalive"), command)
