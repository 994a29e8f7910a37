package rapier.examples

import rapier.client.*
import rapier.testkit.{StubRequest, StubServer, StubTransport}

import scala.concurrent.Await
import scala.concurrent.duration.*

/** How the guide's testing page tests an endpoint: in memory, with no socket. */
class TestingExample extends munit.FunSuite:
  // start:stub
  test("GET /books/1 answers the book, served in memory"):
    val stub = StubServer(List(readme.served))
    val answer = stub.sendAndWait(StubRequest.get("/books/1?lang=fr"))
    assertEquals((answer.status, answer.bodyText), (200, "Dune (fr)"))
    assertEquals(stub.sendAndWait(StubRequest.get("/books/x")).status, 400)
  // end:stub

  // start:client-stub
  test("the same endpoint called through the client, its typed error a Left"):
    val call = readme.book.client[scala.concurrent.Future](StubTransport(StubServer(List(readme.served))))
    assertEquals(Await.result(call((2L, None)), 10.seconds), Left(readme.NotFound("no book 2")))
  // end:client-stub
