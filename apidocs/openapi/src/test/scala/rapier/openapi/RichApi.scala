package rapier.openapi

import com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}
import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.model.StatusCode

import java.nio.file.Path
import java.time.LocalDate

/**
 * Endpoints using every kind of input and output the model has, for the golden documents: parameters of each
 * location with validators, bodies of every raw type and several media types, typed errors with several variants on
 * one status code, security schemes alone and as alternatives, recursive and generic types, an enum, a sealed trait
 * with a discriminator, and two types of the same simple name.
 */
object RichApi:
  enum Genre:
    case Fiction, Science, History

  final case class Author(name: String, born: Option[Int])
  final case class Book(
      id: Long,
      title: String,
      author: Author,
      genre: Genre,
      tags: List[String],
      published: Option[LocalDate],
      ratings: Map[String, Int]
  )
  final case class Page[T](items: List[T], total: Long)

  sealed trait Shape
  final case class Circle(radius: Double) extends Shape
  final case class Rectangle(width: Double, height: Double) extends Shape
  final case class Group(members: List[Shape]) extends Shape

  final case class Category(name: String, children: List[Category])

  final case class NotFound(what: String)
  final case class Invalid(field: String, reason: String)
  final case class Duplicate(existingId: Long)
  final case class Stale(version: Int)

  final case class Upload(title: String, file: Path, pages: Option[Int]) derives MultipartCodec

  given Schema[Genre] = Schema.derived
  given Schema[Book] = Schema
    .derived[Book]
    .modify(_.title)(_.validate(Validator.minLength(1).and(Validator.maxLength(200))).description("The book's title"))
    .modify(_.tags)(_.validate(Validator.maxSize(10)))
    .modify(_.id)(_.validate(Validator.positive))
  given Schema[Shape] = Schema.derived[Shape].discriminator("type")

  given JsonValueCodec[Author] = JsonCodecMaker.make
  given JsonValueCodec[Book] = JsonCodecMaker.make
  given bookPage: JsonValueCodec[Page[Book]] = JsonCodecMaker.make
  given authorPage: JsonValueCodec[Page[Author]] = JsonCodecMaker.make

  /** A book as a line of text, for responses that ask for text/plain. */
  given Codec[String, Book] =
    summon[Codec[String, String]].mapEither[Book](_ => Left("a book in JSON"))(b => s"${b.title}, by ${b.author.name}")
  given JsonValueCodec[Shape] = JsonCodecMaker.make(CodecMakerConfig.withAllowRecursiveTypes(true))
  given JsonValueCodec[Category] = JsonCodecMaker.make(CodecMakerConfig.withAllowRecursiveTypes(true))
  given JsonValueCodec[NotFound] = JsonCodecMaker.make
  given JsonValueCodec[Invalid] = JsonCodecMaker.make
  given JsonValueCodec[Duplicate] = JsonCodecMaker.make
  given JsonValueCodec[Stale] = JsonCodecMaker.make
  given JsonValueCodec[a.Item] = JsonCodecMaker.make
  given JsonValueCodec[List[b.Item]] = JsonCodecMaker.make

  private val bookId = path[Long]("id").validate(Validator.min(1L)).description("The book's id").example("42")

  val listBooks = endpoint.get
    .in("books")
    .in(query[Int]("limit").validate(Validator.inRange(1, 100)).description("At most this many books"))
    .in(query[Option[Int]]("offset").validate(Validator.nonNegative[Int].forOption).example("0"))
    .in(query[List[Genre]]("genre").description("Only books of these genres"))
    .in(query[List[String]]("word").validate(Validator.minLength(2).forEach[List[String]]))
    .in(query[Option[String]]("q").deprecated)
    .in(header[Option[String]]("X-Trace").description("A trace id to log").example("abc-123"))
    .in(cookie[Option[String]]("session"))
    .out(jsonBody[Page[Book]].description("A page of books"))
    .out(header[Long]("X-Total-Count"))
    .name("listBooks")
    .summary("List books")
    .description("Books in the catalogue, a page at a time.")
    .tag("books")

  val getBook = endpoint.get
    .in("books" / bookId)
    .out(oneOfBody(jsonBody[Book], plainBody[Book]))
    .errorOut(statusCode(StatusCode.NotFound).and(jsonBody[NotFound]))
    .name("getBook")
    .tag("books")

  val addBook = endpoint.post
    .securityIn(auth.bearer)
    .in("books")
    .in(jsonBody[Book].example("""{"id": 1, "title": "Dune"}"""))
    .out(statusCode(StatusCode.Created))
    .out(header[String]("Location"))
    .out(jsonBody[Book])
    .errorOut(
      oneOf[Any](
        oneOfVariant(StatusCode.BadRequest, jsonBody[Invalid]).description("The book is not valid"),
        oneOfVariant(StatusCode.Conflict, jsonBody[Duplicate]).description("The book exists"),
        oneOfVariant(StatusCode.Conflict, jsonBody[Stale]).description("The catalogue changed meanwhile")
      )
    )
    .name("addBook")
    .tag("books")
    .tag("admin")

  val putCover = endpoint.put
    .securityIn(auth.apiKey(header[String]("X-API-Key")))
    .in("books" / bookId / "cover")
    .in(header("Content-Type", "image/png"))
    .in(byteArrayBody.description("A PNG image"))
    .out(statusCode(StatusCode.NoContent))
    .tag("books")

  val deleteBook = endpoint.delete
    .securityIn(auth.firstOf(auth.basic, auth.bearer))
    .in("books" / bookId)
    .out(statusCode(StatusCode.NoContent))
    .deprecated
    .tag("admin")

  val shapes = endpoint.post.in("shapes").in(jsonBody[Shape]).out(jsonBody[Shape])

  val categories = endpoint.get.in("categories").out(jsonBody[Category])

  val search = endpoint.post
    .in("search")
    .in(formBody[Map[String, String]])
    .out(jsonBody[List[b.Item]])

  val item =
    endpoint.get.in("items" / path[String]("sku").validate(Validator.pattern("[A-Z]{3}-[0-9]+"))).out(jsonBody[a.Item])

  val authors = endpoint.get.in("authors").out(jsonBody[Page[Author]])

  val upload = endpoint.post.in("uploads").in(multipartBody[Upload]).out(stringBody)

  val files = endpoint.get.in("files").in(paths).out(byteArrayBody)

  val login = endpoint.post
    .in("login")
    .in(query[String]("token").validate(Validator.enumeration(List("a", "b"))))
    .out(setCookie("session"))
    .out(statusCode)

  /** Two endpoints named alike: the second operation id gets a suffix. */
  val ping = endpoint.get.in("ping").out(stringBody).name("ping")
  val pingAgain = endpoint.get.in("ping" / "again").out(stringBody).name("ping")

  /** A WebSocket: documented as its 101 and its handshake's headers. */
  val chat = endpoint.get.in("chat").out(webSocketBody[String, String]).name("chat")

  val all: List[AnyEndpoint] = List(
    listBooks,
    getBook,
    addBook,
    putCover,
    deleteBook,
    shapes,
    categories,
    search,
    item,
    authors,
    upload,
    files,
    login,
    ping,
    pingAgain,
    chat
  )
