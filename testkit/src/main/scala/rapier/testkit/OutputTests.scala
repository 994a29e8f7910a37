package rapier.testkit

import rapier.*
import rapier.model.*
import rapier.server.*

import scala.concurrent.Future

/** Every kind of output: status codes, headers, cookies, bodies, and variants chosen by the value. */
trait OutputTests extends ServerTestSupport:
  import OutputTests.*

  test("a fixed status code"):
    val e = endpoint.post.in("items").out(statusCode(StatusCode.Created)).out(stringBody)
    withServer(e.serverLogicSuccess(_ => Future.successful("made"))) { t =>
      val r = t.post("/items", "")
      assertEquals(r.status, 201)
      assertEquals(r.body, "made")
    }

  test("a status code chosen by the logic"):
    val e = endpoint.get.in("s" / path[Int]("code")).out(statusCode)
    withServer(e.serverLogicSuccess(c => Future.successful(StatusCode(c)))) { t =>
      assertEquals(t.get("/s/202").status, 202)
      assertEquals(t.get("/s/418").status, 418)
    }

  test("output headers, one and many values, and fixed ones"):
    val e = endpoint.get
      .in("h")
      .out(header[String]("X-One"))
      .out(header[List[Int]]("X-Many"))
      .out(header("X-Fixed", "yes"))
      .out(stringBody)
    withServer(e.serverLogicSuccess(_ => Future.successful(("1", List(2, 3), "body")))) { t =>
      val r = t.get("/h")
      assertEquals(r.header("X-One"), Some("1"))
      assertEquals(r.headerValues("X-Many"), List("2", "3"))
      assertEquals(r.header("X-Fixed"), Some("yes"))
      assertEquals(r.body, "body")
    }

  test("an optional output header is left out when None"):
    val e = endpoint.get.in("h" / path[Boolean]("set")).out(header[Option[String]]("X-Maybe"))
    withServer(e.serverLogicSuccess(set => Future.successful(Option.when(set)("here")))) { t =>
      assertEquals(t.get("/h/true").header("X-Maybe"), Some("here"))
      assertEquals(t.get("/h/false").header("X-Maybe"), None)
    }

  test("Set-Cookie headers carry the cookie's attributes"):
    val e = endpoint.post.in("login").out(setCookie("session")).out(setCookieOpt("other"))
    val cookie = CookieValueWithMeta(
      "abc123",
      maxAge = Some(3600),
      path = Some("/"),
      secure = true,
      httpOnly = true,
      sameSite = Some(SameSite.Strict)
    )
    withServer(e.serverLogicSuccess(_ => Future.successful((cookie, None)))) { t =>
      assertEquals(
        t.post("/login", "").headerValues("Set-Cookie"),
        List("session=abc123; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Strict")
      )
    }

  test("an empty output is a 200 with an empty body"):
    withServer(endpoint.get.in("e").serverLogicSuccess(_ => Future.successful(()))) { t =>
      val r = t.get("/e")
      assertEquals(r.status, 200)
      assertEquals(r.body, "")
      assertEquals(r.header("Content-Length"), Some("0"))
    }

  test("204 No Content has neither body nor Content-Length"):
    val e = endpoint.delete.in("d").out(statusCode(StatusCode.NoContent))
    withServer(e.serverLogicSuccess(_ => Future.successful(()))) { t =>
      val r = t.rawExchange("DELETE /d HTTP/1.1\r\nHost: x\r\n\r\n")
      assertEquals(r.status, 204)
      assertEquals(r.header("Content-Length"), None)
    }

  test("an explicit Content-Type header replaces the body's"):
    val e = endpoint.get.in("html").out(header[String]("Content-Type")).out(stringBody)
    withServer(e.serverLogicSuccess(_ => Future.successful(("text/html; charset=UTF-8", "<p>hi</p>")))) { t =>
      val r = t.get("/html")
      assertEquals(r.headerValues("Content-Type"), List("text/html; charset=UTF-8"))
      assertEquals(r.body, "<p>hi</p>")
    }

  test("a oneOf output writes the variant of the value's class, with its status"):
    val e = endpoint.get
      .in("shape" / path[String]("kind"))
      .out(
        oneOf[Shape](
          oneOfVariant(StatusCode.Ok, stringBody.mapTo[Circle]),
          oneOfVariant(StatusCode.Accepted, header[Int]("X-Side").mapTo[Square])
        )
      )
    withServer(e.serverLogicSuccess(k => Future.successful(if k == "circle" then Circle("round") else Square(4)))) {
      t =>
        val c = t.get("/shape/circle")
        assertEquals((c.status, c.body), (200, "round"))
        val s = t.get("/shape/square")
        assertEquals((s.status, s.header("X-Side")), (202, Some("4")))
    }

  test("typed errors as a union, each with its status code"):
    withServer(booksEndpoint) { t =>
      assertEquals(t.get("/books/1").body, "Dune")
      val missing = t.get("/books/404")
      assertEquals((missing.status, missing.body), (404, "no book 404"))
      val conflict = t.get("/books/409")
      assertEquals((conflict.status, conflict.body), (409, "locked"))
    }

  test("an error output without a status code is a 400"):
    val e = endpoint.get.in("fail").errorOut(stringBody).out(stringBody)
    withServer(e.serverLogic[Future](_ => Future.successful(Left("nope")))) { t =>
      val r = t.get("/fail")
      assertEquals((r.status, r.body), (400, "nope"))
    }

  test("Unit errors are a bare 400"):
    val e = endpoint.get.in("fail").out(stringBody)
    withServer(e.serverLogic[Future](_ => Future.successful(Left(())))) { t =>
      val r = t.get("/fail")
      assertEquals((r.status, r.body), (400, ""))
    }

  test("a value no oneOf variant applies to is a 500, and the connection lives on"):
    val e = endpoint.get.in("shape").out(oneOf[Shape](oneOfVariant(StatusCode.Ok, stringBody.mapTo[Circle])))
    withServer(e.serverLogicSuccess(_ => Future.successful(Square(1)))) { t =>
      val r = t.get("/shape")
      assertEquals((r.status, r.problem.title), (500, "Internal Server Error"))
    }

  test("a header value with a line break is never written: 500 instead"):
    val e = endpoint.get.in("inject").out(header[String]("X-Injected")).out(stringBody)
    withServer(e.serverLogicSuccess(_ => Future.successful(("a\r\nSet-Cookie: evil=1", "body")))) { t =>
      val r = t.get("/inject")
      assertEquals(r.status, 500)
      assertEquals(r.header("Set-Cookie"), None)
      assertEquals(r.header("X-Injected"), None)
    }

  test("outputs map from a case class"):
    val e = endpoint.get.in("p").out(header[Int]("X-X").and(header[Int]("X-Y")).mapTo[Point])
    withServer(e.serverLogicSuccess(_ => Future.successful(Point(3, 4)))) { t =>
      val r = t.get("/p")
      assertEquals((r.header("X-X"), r.header("X-Y")), (Some("3"), Some("4")))
    }

object OutputTests:
  sealed trait Shape
  final case class Circle(name: String) extends Shape
  final case class Square(side: Int) extends Shape
  final case class Point(x: Int, y: Int)

  final case class NotFound(message: String)
  final case class Conflict(message: String)

  val books: Endpoint[Unit, Long, NotFound | Conflict, String] = endpoint.get
    .in("books" / path[Long]("id"))
    .errorOut(
      oneOf[NotFound | Conflict](
        oneOfVariant(StatusCode.NotFound, stringBody.mapTo[NotFound]),
        oneOfVariant(StatusCode.Conflict, stringBody.mapTo[Conflict])
      )
    )
    .out(stringBody)

  val booksEndpoint: ServerEndpoint[Future] = books.serverLogic[Future] {
    case 404 => Future.successful(Left(NotFound("no book 404")))
    case 409 => Future.successful(Left(Conflict("locked")))
    case _ => Future.successful(Right("Dune"))
  }
