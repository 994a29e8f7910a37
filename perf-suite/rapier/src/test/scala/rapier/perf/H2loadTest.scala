package rapier.perf

import java.nio.file.{Files, Paths}

class H2loadTest extends munit.FunSuite:
  test("the command pins h2load: users connections of ten streams, the body and content type, the log"):
    val post = Scenarios.byName("PostBytesH2").get
    assertEquals(
      H2load.command("http://h:1/p", 64, 10, post, Some(Paths.get("b")), Paths.get("l"), Some(List(1))),
      List("timeout", "-k", "5", "41", "taskset", "-c", "1", "h2load", "-t", "1", "-c", "64", "-m", "10", "-D", "10") ++
        List("-H", "content-type: application/octet-stream", "-d", "b", "--log-file", "l", "http://h:1/p")
    )
    // Over TLS the connections are set up in a warm-up outside the measured time
    val tls =
      H2load.command("https://h:1/p", 64, 10, Scenarios.byName("PostBytesH2Tls").get, None, Paths.get("l"), None)
    assert(tls.containsSlice(List("-D", "10", "--warm-up-time", H2load.TlsWarmUp.toString)), tls)

  private val output =
    """starting benchmark...
      |spawning thread #0: 64 total client(s). Timing-based test with 0s of warm-up time and 10s of main duration for measurements.
      |
      |finished in 10.00s, 52345.60 req/s, 1.90MB/s
      |requests: 523460 total, 524096 started, 523460 done, 523456 succeeded, 4 failed, 0 errored, 0 timeout
      |status codes: 523455 2xx, 0 3xx, 1 4xx, 0 5xx
      |traffic: 18.98MB (19901234) total, 1.50MB (1572864) headers (space savings 95.12%), 2.00MB (2094176) data
      |                     min         max         mean         sd        +/- sd
      |time for request:      101us     12.34ms      1.22ms       456us    70.12%
      |""".stripMargin

  test("results are read from h2load's summary, percentiles from its log of durations"):
    val log = Files.createTempFile("h2load", ".log")
    try
      // start time, status, duration (µs): 1 to 1000 µs
      Files.writeString(log, (1 to 1000).map(i => s"1700000000.$i\t200\t$i").mkString("\n"))
      val r = H2load.parse(output, log).fold(fail(_), identity)
      assertEquals(r.requests, 523456L)
      assertEquals(r.durationMicros, 10000000L)
      // After a warm-up, the time h2load prints includes it; its requests and rate are the measured time's
      val warmed = output.replace("finished in 10.00s", "finished in 13.00s")
      assertEquals(H2load.parse(warmed, log).fold(fail(_), identity).durationMicros, 10000000L)
      assertEquals(r.bytes, 19901234L)
      assertEquals(r.errors, 5L, "4 failed and one 4xx")
      assertEquals((r.latency.p50, r.latency.p99, r.latency.max), (500.0, 990.0, 1000.0))
    finally Files.deleteIfExists(log)

  test("output without a summary says what h2load printed instead"):
    val log = Files.createTempFile("h2load", ".log")
    try
      val error = H2load.parse("connect error: Connection refused\n", log).swap.getOrElse(fail("parsed"))
      assert(error.contains("Connection refused"), error)
    finally Files.deleteIfExists(log)
