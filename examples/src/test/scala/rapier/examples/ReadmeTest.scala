package rapier.examples

import rapier.testkit.{StubRequest, StubServer}

/** The README's first example does what the README says (its code is the example's: [[SnippetsTest]]). */
class ReadmeTest extends munit.FunSuite:
  test("the README example answers as the README says"):
    val stub = StubServer(List(readme.served))
    assertEquals(stub.sendAndWait(StubRequest.get("/books/1?lang=fr")).bodyText, "Dune (fr)")
    val missing = stub.sendAndWait(StubRequest.get("/books/2"))
    assertEquals((missing.status, missing.bodyText), (404, "no book 2"))
    val bad = stub.sendAndWait(StubRequest.get("/books/x"))
    assertEquals(bad.status, 400)
    assert(bad.bodyText.contains("path parameter 'id'") && !bad.bodyText.contains("x'"), bad.bodyText)
    val wrongMethod = stub.sendAndWait(StubRequest.post("/books/1", ""))
    assertEquals((wrongMethod.status, wrongMethod.header("Allow")), (405, Some("GET, HEAD")))
