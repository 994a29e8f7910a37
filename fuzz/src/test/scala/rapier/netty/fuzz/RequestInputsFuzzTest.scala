package rapier.netty.fuzz

import com.code_intelligence.jazzer.api.FuzzedDataProvider
import com.code_intelligence.jazzer.junit.FuzzTest
import rapier.model.Header
import rapier.testkit.{StubRequest, StubServer}

import scala.concurrent.Future

/**
 * Requests as any backend may hand them to the interpreter — any method, target, header values and body, with the
 * names and media types the endpoints read — through every input codec: the answer is never a 5xx, and nothing
 * throws.
 */
class RequestInputsFuzzTest:
  @FuzzTest(maxDuration = "30s")
  def anyRequest(data: FuzzedDataProvider): Unit = RequestInputsFuzzTest.serve(data)

object RequestInputsFuzzTest:
  private val stub = StubServer[Future](FuzzEndpoints.all)
  private val methods = Array("GET", "POST", "PUT", "HEAD", "DELETE", "OPTIONS")

  def serve(data: FuzzedDataProvider): Unit =
    val method = data.pickValue(methods)
    val target = data.pickValue(FuzzEndpoints.targets) + data.consumeString(60)
    val headers = List.fill(data.consumeInt(0, 6)) {
      val name = data.pickValue(FuzzEndpoints.headerNames)
      val value = if name == "Content-Type" && data.consumeBoolean() then data.pickValue(FuzzEndpoints.contentTypes)
      else data.consumeString(80)
      Header(name, value)
    }
    val request = StubRequest(method, target, headers, data.consumeRemainingAsBytes())
    val response = StubServer.sendAndWait(stub)(request)
    if response.status >= 500 then
      throw AssertionError(s"answered ${response.status} to $method $target $headers")
