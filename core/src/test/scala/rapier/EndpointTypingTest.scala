package rapier

import rapier.model.*

import java.util.UUID

class EndpointTypingTest extends munit.FunSuite:
  case class Point(x: Int, y: Int)
  case class Wrapper(value: String)
  case class NotFound(what: String)
  case class Conflict(reason: String)
  final class Opaque

  test("Unit inputs vanish and a single value is not wrapped"):
    val e: Endpoint[Unit, Long, Unit, Unit] = endpoint.get.in("books" / path[Long]("id"))
    assertEquals(e.pathTemplate, "/books/{id}")
    val e2: Endpoint[Unit, Long, Unit, Unit] = endpoint.in("api").in("books").in(path[Long]("id")).in("reviews")
    assertEquals(e2.pathTemplate, "/api/books/{id}/reviews")

  test("values concatenate into flat tuples"):
    val e: Endpoint[Unit, (Long, Int, Option[String]), Unit, (String, String)] =
      endpoint.get
        .in("books" / path[Long]("id"))
        .in(query[Int]("limit"))
        .in(header[Option[String]]("X-Trace"))
        .out(stringBody)
        .out(header[String]("X-Version"))
    assertEquals(e.show, "GET /books/{id}")
    val nested: EndpointInput[(Int, String, Long)] = query[Int]("a").and(query[String]("b").and(query[Long]("c")))
    assert(nested.isInstanceOf[EndpointInput.Pair[?, ?, ?]])

  test("tuples inside values are flattened and Unit on both sides is Unit"):
    val pair: EndpointInput[(Int, String)] = query[Int]("a").and(query[String]("b"))
    val triple: EndpointInput[(Int, String, UUID)] = pair.and(path[UUID]("id"))
    val unit: EndpointInput[Unit] = "a" / "b"
    assert(triple != null && unit != null)

  test("mapTo turns a tuple of inputs into a case class, and a single one into a one-field class"):
    val point: EndpointInput[Point] = query[Int]("x").and(query[Int]("y")).mapTo[Point]
    val wrapped: EndpointIO[Wrapper] = header[String]("X-W").mapTo[Wrapper]
    val body: EndpointIO[Wrapper] = stringBody.mapTo[Wrapper]
    val e: Endpoint[Unit, Point, Unit, Wrapper] = endpoint.in(point).out(body)
    assert(wrapped != null && e != null)

  test("an input with its own type becomes opaque, not flattened"):
    given Codec[String, Opaque] = Codec.string.map(_ => new Opaque)(_ => "o")
    val e: Endpoint[Unit, (Opaque, Int), Unit, Unit] = endpoint.in(path[Opaque]("o")).in(query[Int]("n"))
    assertEquals(e.pathTemplate, "/{o}")

  test("opaque types are values like any other, on either side of a combination"):
    given Codec[String, EndpointTypingTest.UserId] = Codec.long.map(EndpointTypingTest.UserId(_))(_.value)
    val e: Endpoint[Unit, (EndpointTypingTest.UserId, StatusCode, Int), Unit, (String, StatusCode)] =
      endpoint
        .in("users" / path[EndpointTypingTest.UserId]("id"))
        .in(query[Int]("n").map(StatusCode(_))(_.code))
        .in(query[Int]("m"))
        .out(stringBody)
        .out(statusCode)
    val pair: EndpointInput[(Int, Int, EndpointTypingTest.UserId)] =
      query[Int]("a").and(query[Int]("b")).and(path[EndpointTypingTest.UserId]("u"))
    assertEquals(e.pathTemplate, "/users/{id}")
    assert(pair != null)

  test("generic code combines abstract values as single values"):
    def withTrace[A](i: EndpointInput[A]) = i.and(header[String]("X-Trace"))
    val traced: EndpointInput[(Long, String)] = withTrace(path[Long]("id"))
    assert(traced != null)

  test("security inputs are kept apart from the other inputs"):
    val e: Endpoint[String, Long, Unit, Unit] =
      endpoint.securityIn(header[String]("Authorization")).in("books" / path[Long]("id"))
    assertEquals(e.pathTemplate, "/books/{id}")

  test("union error types come from oneOf"):
    val e: Endpoint[Unit, Long, NotFound | Conflict, String] =
      endpoint.get
        .in("books" / path[Long]("id"))
        .errorOut(
          oneOf[NotFound | Conflict](
            oneOfVariant(StatusCode.NotFound, stringBody.mapTo[NotFound]),
            oneOfVariant(StatusCode.Conflict, stringBody.mapTo[Conflict])
          )
        )
        .out(stringBody)
    val variants = e.errorOutput match
      case EndpointOutput.Pair(_, EndpointOutput.OneOf(vs), _, _) => vs
      case other => fail(s"unexpected $other")
    assertEquals(variants.map(_.statusCode), List(Some(StatusCode.NotFound), Some(StatusCode.Conflict)))
    assert(variants.head.appliesTo(NotFound("x")))
    assert(!variants.head.appliesTo(Conflict("x")))

  test("variants for primitive types match boxed values"):
    val v = oneOfVariant(StatusCode.Ok, plainBody[Int])
    assert(v.appliesTo(42))
    assert(!v.appliesTo("42"))

  test("templates number unnamed parts and show the rest of the path"):
    val e = endpoint.post.in("files" / paths).name("upload")
    assertEquals(e.show, "POST /files/{paths*} [upload]")
    assertEquals(endpoint.in("a").show, "* /a")
    assertEquals(endpoint.show, "* /")

  test("a missing codec is a compile error that names the type and says how to provide one"):
    val errors = compileErrors("""path[rapier.EndpointTypingTest#Opaque]("x")""")
    assert(errors.contains("No Codec[String, rapier.EndpointTypingTest#Opaque]"), errors)
    assert(errors.contains("given Codec[String,"), errors)

  test("mapTo refuses a case class whose fields don't match the values"):
    val errors = compileErrors("""query[Int]("x").and(query[String]("y")).mapTo[Point]""")
    assert(errors.nonEmpty)

object EndpointTypingTest:
  opaque type UserId = Long
  object UserId:
    def apply(l: Long): UserId = l
    extension (u: UserId) def value: Long = u
