package rapier.examples

import com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.model.{HeaderNames, StatusCode}

/** A small JSON API over a shelf of books: the endpoints, described once, with their types. */
object Books:
  final case class Book(id: Long, title: String, author: String, year: Int)
  final case class NewBook(title: String, author: String, year: Int)

  final case class NotFound(message: String)
  final case class Conflict(message: String)
  final case class Unauthorized(message: String)

  given JsonValueCodec[Book] = JsonCodecMaker.make
  given JsonValueCodec[List[Book]] = JsonCodecMaker.make
  given JsonValueCodec[NewBook] = JsonCodecMaker.make
  given JsonValueCodec[NotFound] = JsonCodecMaker.make
  given JsonValueCodec[Conflict] = JsonCodecMaker.make
  given JsonValueCodec[Unauthorized] = JsonCodecMaker.make

  // start:rules
  /** What a new book must be: every rule is checked, and every broken one reported with its path. */
  given Schema[NewBook] = Schema
    .derived[NewBook]
    .modify(_.title)(_.validate(Validator.nonEmptyString.and(Validator.maxLength(200))))
    .modify(_.author)(_.validate(Validator.nonEmptyString))
    .modify(_.year)(_.validate(Validator.max(java.time.Year.now.getValue + 1)))
  // end:rules

  private val bookId = path[Long]("id").description("the book's id").validate(Validator.positive)

  private val notFound = oneOfVariant(StatusCode.NotFound, jsonBody[NotFound])
  private val conflict = oneOfVariant(StatusCode.Conflict, jsonBody[Conflict])
  private val unauthorized = oneOfVariant(StatusCode.Unauthorized, jsonBody[Unauthorized])

  // start:endpoints
  val list: Endpoint[Unit, Option[Int], Unit, List[Book]] =
    endpoint.get
      .in("books")
      .in(query[Option[Int]]("limit").validate(Validator.min(1).forOption))
      .out(jsonBody[List[Book]])
      .name("listBooks")

  val find: Endpoint[Unit, Long, NotFound, Book] =
    endpoint.get
      .in("books" / bookId)
      .errorOut(oneOf[NotFound](notFound))
      .out(jsonBody[Book])
      .name("getBook")

  /** Adding a book takes a librarian's bearer token; the body is read only once the token is accepted. */
  val create: Endpoint[String, NewBook, Unauthorized | Conflict, (String, Book)] =
    endpoint.post
      .securityIn(auth.bearer.realm("books"))
      .in("books")
      .in(jsonBody[NewBook])
      .errorOut(oneOf[Unauthorized | Conflict](unauthorized, conflict))
      .out(statusCode(StatusCode.Created))
      .out(header[String](HeaderNames.Location))
      .out(jsonBody[Book])
      .name("addBook")
  // end:endpoints

  val remove: Endpoint[String, Long, Unauthorized | NotFound | Conflict, Unit] =
    endpoint.delete
      .securityIn(auth.bearer.realm("books"))
      .in("books" / bookId)
      .errorOut(oneOf[Unauthorized | NotFound | Conflict](unauthorized, notFound, conflict))
      .out(statusCode(StatusCode.NoContent))
      .name("deleteBook")
