package rapier.examples

import rapier.netty.NettyServer
import rapier.testkit.*

import java.net.URLEncoder
import java.nio.charset.StandardCharsets

/** Each example, served for real and exercised the way its documentation says. */
class ExamplesTest extends munit.FunSuite:
  LeakDetection.install()

  private def serving[T](endpoints: List[rapier.server.ServerEndpoint[scala.concurrent.Future]])(f: TestClient => T)
      : T =
    val binding = NettyServer(endpoints).withPort(0).start()
    try f(TestClient(binding.port))
    finally binding.stop()

  private def form(fields: (String, String)*) =
    fields.map((k, v) => s"$k=${URLEncoder.encode(v, StandardCharsets.UTF_8)}").mkString("&")
  private val formType = "Content-Type" -> "application/x-www-form-urlencoded"

  test("hello world greets"):
    serving(List(HelloWorld.helloServer)) { c =>
      assertEquals(c.get("/hello?name=you").body, "Hello, you!")
      assertEquals(c.get("/hello").body, "Hello, world!")
    }

  test("books: list, find, add, remove"):
    serving(BooksServer().endpoints) { c =>
      assertEquals(c.get("/books").body.linesIterator.toList.size, 2)
      assertEquals(c.get("/books?limit=1").body, "1: Dune by Frank Herbert (1965)")
      assertEquals(c.get("/books/2").body, "2: The Left Hand of Darkness by Ursula K. Le Guin (1969)")

      val added = c.send(
        "POST",
        "/books",
        form("title" -> "Kindred", "author" -> "Octavia E. Butler", "year" -> "1979"),
        formType
      )
      assertEquals(added.status, 201)
      assertEquals(added.header("Location"), Some("/books/3"))
      assertEquals(c.get("/books/3").body, "3: Kindred by Octavia E. Butler (1979)")

      assertEquals(c.send("DELETE", "/books/3", null).status, 204)
      assertEquals(c.get("/books/3").status, 404)
    }

  test("books: errors are typed and carry their status codes"):
    serving(BooksServer().endpoints) { c =>
      val missing = c.get("/books/99")
      assertEquals((missing.status, missing.body), (404, "There is no book 99"))
      val duplicate =
        c.send("POST", "/books", form("title" -> "Dune", "author" -> "Frank Herbert", "year" -> "1965"), formType)
      assertEquals((duplicate.status, duplicate.body), (409, "'Dune' by Frank Herbert is already on the shelf"))
      assertEquals(c.send("DELETE", "/books/1", null).status, 409)
      assertEquals(c.send("DELETE", "/books/42", null).status, 404)
    }

  test("books: bad input is refused with a precise 4xx"):
    serving(BooksServer().endpoints) { c =>
      assertEquals(c.get("/books/0").status, 400)
      assertEquals(c.get("/books/abc").status, 400)
      assertEquals(c.get("/books?limit=0").status, 400)
      val future = c.send("POST", "/books", form("title" -> "T", "author" -> "A", "year" -> "3000"), formType)
      assertEquals(future.status, 400)
      assert(future.body.contains("the body is invalid"), future.body)
      assertEquals(c.send("POST", "/books", "title=T", "Content-Type" -> "text/plain").status, 415)
      assertEquals(c.send("PUT", "/books/1", "").status, 405)
    }

  override def afterAll(): Unit =
    val leaks = LeakDetection.leaksSoFar()
    assert(leaks.isEmpty, leaks.mkString("\n"))
