package rapier.perf

import java.nio.file.Paths

class WrkTest extends munit.FunSuite:
  test("a script sets the method, the content type and the body, and prints results as JSON"):
    val s = Wrk.script(Scenarios.byName("PostBytes").get, Some(Paths.get("/tmp/x/PostBytes.body")))
    assert(s.contains("""wrk.method = "POST""""), s)
    assert(s.contains("""wrk.headers["Content-Type"] = "application/octet-stream""""), s)
    assert(s.contains("""io.open("/tmp/x/PostBytes.body", "rb")"""), s)
    assert(s.contains("latency:percentile(99.99)"), s)
    assert(s.contains("RAPIER_WRK"), s)
    val get = Wrk.script(Scenarios.byName("SimpleGet").get, None)
    assert(get.contains("""wrk.method = "GET"""") && !get.contains("wrk.body"), get)
    assert(!get.contains("Connection"), get)
    val closing = Wrk.script(Scenarios.byName("SimpleGetNewConnection").get, None)
    assert(closing.contains("""wrk.headers["Connection"] = "close""""), closing)

  test("the command pins wrk and never asks for more threads than connections"):
    assertEquals(
      Wrk.command("http://h:1/p", 64, 10, Paths.get("s.lua"), Some(List(2, 3))),
      List("taskset", "-c", "2,3", "wrk", "-t2", "-c64", "-d10s", "--timeout", "30s", "-s", "s.lua", "http://h:1/p")
    )
    assertEquals(
      Wrk.command("http://h:1/p", 1, 5, Paths.get("s.lua"), Some(List(2, 3))).take(5),
      List("taskset", "-c", "2,3", "wrk", "-t1")
    )
    assertEquals(Wrk.command("http://h:1/p", 8, 5, Paths.get("s.lua"), None).head, "wrk")

  private val output =
    """Running 10s test @ http://127.0.0.1:8080/path0/4
      |  1 threads and 64 connections
      |  Thread Stats   Avg      Stdev     Max   +/- Stdev
      |RAPIER_WRK {"requests":1000000,"durationMicros":10000000,"bytes":85000000,"connect":0,"read":2,"write":0,"status":1,"timeout":0,"latency":{"min":50,"max":9000,"mean":612.500,"stdev":120.250,"p50":580,"p75":640,"p90":700,"p99":1200,"p999":3000,"p9999":8000}}
      |""".stripMargin

  test("results are read from wrk's output"):
    val r = Wrk.parse(output).fold(fail(_), identity)
    assertEquals(r.requests, 1000000L)
    assertEquals(r.throughput, 100000.0)
    assertEquals(r.errors, 3L)
    assertEquals(r.latency.p9999, 8000.0)
    assertEquals(LatencyMs.of(r.latency).p99, 1.2)

  test("output without results says what wrk printed instead"):
    val error = Wrk.parse("unable to connect to 127.0.0.1:1 Connection refused\n").swap.getOrElse(fail("parsed"))
    assert(error.contains("Connection refused"), error)
    assert(Wrk.parse("RAPIER_WRK {broken").isLeft)

class MachineTest extends munit.FunSuite:
  test("CPU lists"):
    assertEquals(Machine.parseCpuList("0-3,6,8-9"), List(0, 1, 2, 3, 6, 8, 9))
    assertEquals(Machine.defaultSplit(List(0, 1)), (List(0), List(1)))
    assertEquals(Machine.defaultSplit(List(0, 1, 2, 3, 4)), (List(0, 1), List(2, 3, 4)))
    assertEquals(Machine.defaultSplit(List(0)), (List(0), List(0)))

  test("CPU utilization from two readings of /proc/stat"):
    val before =
      CpuTimes.parse("cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0 0 0\n")
    val after =
      CpuTimes.parse("cpu  250 0 150 900 0 0 0 0 0 0\ncpu0 150 0 100 400 0 0 0 0 0 0\ncpu1 100 0 50 500 0 0 0 0 0 0\n")
    assertEquals(after.utilizationSince(before, List(0)), 1.0)
    assertEquals(after.utilizationSince(before, List(1)), 50.0 / 150)
    assertEquals(after.utilizationSince(before, List(0, 1)), 200.0 / 300)
    assert(after.utilizationSince(before, List(7)).isNaN)
