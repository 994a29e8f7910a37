package rapier.bench

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import org.openjdk.jmh.annotations.*
import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.server.*
import rapier.testkit.StubRequest

import java.util.concurrent.TimeUnit

/**
 * A 64 KB JSON document decoded and encoded again: through a Rapier endpoint with `jsonBody` in and out (routing,
 * Content-Type check, decode, logic, encode), against jsoniter-scala called directly on the same bytes. The
 * difference is all `jsonBody` and the interpreter add.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.MICROSECONDS)
class JsonBodyBenchmark:
  import JsonBodyBenchmark.*

  private var interpreter: ServerInterpreter[Identity] = null
  private var request: StubRequest = null
  private var bytes: Array[Byte] = null

  @Setup
  def setup(): Unit =
    bytes = writeToArray(Order.sample(64 * 1024))
    interpreter = ServerInterpreter(
      List(endpoint.post.in("orders").in(jsonBody[Order]).out(jsonBody[Order]).serverLogicSuccess[Identity](o => o)),
      ServerOptions.default.withoutRequestLog
    )
    request = StubRequest.post("/orders", "").withBody(bytes).header("Content-Type", "application/json")
    val response = interpreter(request)
    require(response.status == 200 && response.body.nn.sameElements(bytes), s"unexpected answer: $response")

  @Benchmark
  def jsoniterDirect(): Array[Byte] = writeToArray(readFromArray[Order](bytes))

  @Benchmark
  def throughJsonBody(): ServerResponse = interpreter(request)

object JsonBodyBenchmark:
  final case class Line(sku: String, description: String, quantity: Int, unitPrice: Double, discounted: Boolean)
  final case class Order(id: Long, customer: String, lines: List[Line], notes: String)

  object Order:
    /** An order of about `size` bytes of JSON. */
    def sample(size: Int): Order =
      val line = Line("SKU-000000", "A line of an order, with a description", 3, 19.99, discounted = true)
      val lineSize = writeToArray(Order(0, "", List(line), "")).length - writeToArray(Order(0, "", Nil, "")).length + 1
      Order(1, "Ada Lovelace", List.tabulate(size / lineSize)(i => line.copy(sku = f"SKU-$i%06d")), "none")

  given JsonValueCodec[Order] = JsonCodecMaker.make
