package rapier.examples

import rapier.*
import rapier.model.{HeaderNames, StatusCode}

/** A small API over a list of books: the endpoints, described once, with their types. */
object Books:
  final case class Book(id: Long, title: String, author: String, year: Int):
    def render: String = s"$id: $title by $author ($year)"

  /** What a client sends to add a book: the fields of a form. */
  final case class NewBook(title: String, author: String, year: Int)

  final case class NotFound(message: String)
  final case class Conflict(message: String)

  private val bookId = path[Long]("id").description("the book's id").validate(Validator.positive)

  private val notFound = oneOfVariant(StatusCode.NotFound, stringBody.mapTo[NotFound])
  private val conflict = oneOfVariant(StatusCode.Conflict, stringBody.mapTo[Conflict])

  /** The fields of the form, checked: a title and an author, and a year no later than next year. */
  private val newBookForm: EndpointIO[NewBook] =
    formBody[Map[String, String]].mapDecode { fields =>
      def text(name: String) = fields.get(name).map(_.trim).filter(_.nonEmpty)
      (text("title"), text("author"), text("year").flatMap(_.toIntOption)) match
        case (Some(t), Some(a), Some(y)) if y <= java.time.Year.now.getValue + 1 => DecodeResult.Value(NewBook(t, a, y))
        case _ => DecodeResult.Error("fields title, author and year (a number, not in the future)")
    }(b => Map("title" -> b.title, "author" -> b.author, "year" -> b.year.toString))

  val list: Endpoint[Unit, Option[Int], Unit, String] =
    endpoint.get
      .in("books")
      .in(query[Option[Int]]("limit").validate(Validator.min(1).contramap(_.getOrElse(1))))
      .out(stringBody)
      .name("listBooks")
      .summary("All books, one per line")

  val find: Endpoint[Unit, Long, NotFound, String] =
    endpoint.get
      .in("books" / bookId)
      .errorOut(oneOf[NotFound](notFound))
      .out(stringBody)
      .name("getBook")

  val create: Endpoint[Unit, NewBook, Conflict, (String, String)] =
    endpoint.post
      .in("books")
      .in(newBookForm)
      .errorOut(oneOf[Conflict](conflict))
      .out(statusCode(StatusCode.Created))
      .out(header[String](HeaderNames.Location))
      .out(stringBody)
      .name("addBook")

  val remove: Endpoint[Unit, Long, NotFound | Conflict, Unit] =
    endpoint.delete
      .in("books" / bookId)
      .errorOut(oneOf[NotFound | Conflict](notFound, conflict))
      .out(statusCode(StatusCode.NoContent))
      .name("deleteBook")
