package rapier.bench

import org.openjdk.jmh.annotations.*
import rapier.*
import rapier.server.*
import rapier.testkit.StubRequest

import java.util.concurrent.TimeUnit
import scala.concurrent.Future

/**
 * One GET through the whole interpreter, with no network: routing, decoding `{id}`, the logic, encoding the body.
 * The endpoint is the perf suite's SimpleGet, among 1 or 128 endpoints; direct style and `Future`.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class InterpretGetBenchmark:
  @Param(Array("1", "128"))
  var endpoints: Int = 0

  private var direct: ServerInterpreter[Identity] = null
  private var future: ServerInterpreter[Future] = null
  // One request object, reused: each benchmark thread has its own state, and a request serves one call at a time.
  private var request: StubRequest = null

  private def get(i: Int) = endpoint.get.in(s"path$i" / path[Int]("id")).out(stringBody)

  @Setup
  def setup(): Unit =
    val options = ServerOptions.default.withoutRequestLog
    direct = ServerInterpreter(
      (0 until endpoints).toList.map(i => get(i).serverLogicSuccess[Identity](id => s"ok $id")),
      options
    )
    future = ServerInterpreter(
      (0 until endpoints).toList.map(i => get(i).serverLogicSuccess[Future](id => Future.successful(s"ok $id"))),
      options
    )
    request = StubRequest("GET", s"/path${endpoints - 1}/4")

  @Benchmark
  def directStyle(): ServerResponse = direct(request)

  @Benchmark
  def futures(): Future[ServerResponse] = future(request)
