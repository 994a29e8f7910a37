package rapier.testkit

import rapier.*
import rapier.client.*
import rapier.json.jsoniter.jsonBody
import rapier.model.StatusCode
import rapier.server.*
import rapier.testkit.TestModel.*

import java.io.InputStream
import java.net.http.HttpRequest.BodyPublishers
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

/** Client calls served by a StubServer in memory: the same codecs, errors and problems as over the network. */
class StubTransportTest extends munit.FunSuite:
  private def call[T](f: Future[T]): T = Await.result(f, 10.seconds)

  private val get = endpoint.get
    .in("orders" / path[Long]("id"))
    .errorOut(oneOf[NotFound](oneOfVariant(StatusCode.NotFound, jsonBody[NotFound])))
    .out(jsonBody[Order])
  private val echo = endpoint.post.in("echo").in(inputStreamBody).out(publisherBody)
  private val stub = StubServer[Future](
    List(
      get.serverLogic[Future](id =>
        Future.successful(if id == 7 then Right(order(Line("a", 1, BigDecimal(2)))) else Left(NotFound(s"order $id")))
      ),
      echo.serverLogicSuccess[Future](in => Future.successful(BodyPublishers.ofByteArray(in.readAllBytes())))
    )
  )

  test("a call is served by the stub: outputs, typed errors and problems as over the network"):
    val c = get.client[Future](StubTransport(stub))
    assertEquals(call(c(7)), Right(order(Line("a", 1, BigDecimal(2)))))
    assertEquals(call(c(8)), Left(NotFound("order 8")))
    val missing = endpoint.get.in("missing").out(stringBody)
    val problem = intercept[ClientException.ProblemAnswer](call(missing.client[Future](StubTransport(stub))(())))
    assertEquals(problem.problem.status, StatusCode.NotFound)

  test("streamed bodies go through the stub both ways"):
    val bytes = Array.tabulate[Byte](200_000)(_.toByte)
    val c = echo.client[Future](StubTransport(stub))
    val out = call(c(java.io.ByteArrayInputStream(bytes): InputStream)).toOption.get
    assertEquals(call(ClientTests.digestOf(out)), s"${bytes.length} ${Sha256.of(bytes)}")
