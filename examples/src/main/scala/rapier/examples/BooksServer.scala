package rapier.examples

import rapier.Secrets
import rapier.examples.Books.*
import rapier.netty.NettyServer
import rapier.openapi.OpenApiInterpreter
import rapier.server.*
import rapier.swaggerui.SwaggerUi

import java.util.concurrent.ConcurrentSkipListMap
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.Future
import scala.jdk.CollectionConverters.*

/**
 * The logic of the books API, over an in-memory shelf. Changes need the librarian's token, compared in constant
 * time. Books by Frank Herbert can't be removed: that's the example's way to show a third error on one endpoint.
 */
final class BooksServer(librarianToken: String = BooksServer.defaultToken):
  private val shelf = ConcurrentSkipListMap[Long, Book]()
  private val ids = AtomicLong()

  add(NewBook("Dune", "Frank Herbert", 1965))
  add(NewBook("The Left Hand of Darkness", "Ursula K. Le Guin", 1969))

  private def add(b: NewBook): Book = shelf.synchronized {
    val book = Book(ids.incrementAndGet(), b.title, b.author, b.year)
    shelf.put(book.id, book)
    book
  }

  // start:security
  /** The security logic: the librarian, or a 401 (with the endpoint's `WWW-Authenticate` challenge). */
  private def librarian(token: String): Future[Either[Unauthorized, Unit]] =
    Future.successful(
      if Secrets.constantTimeEquals(token, librarianToken) then Right(())
      else Left(Unauthorized("That token does not open the shelf"))
    )
  // end:security

  val endpoints: List[ServerEndpoint[Future]] = List(
    list.serverLogicSuccess(limit =>
      Future.successful(shelf.values.asScala.take(limit.getOrElse(Int.MaxValue)).toList)
    ),
    find.serverLogic(id => Future.successful(Option(shelf.get(id)).toRight(NotFound(s"There is no book $id")))),
    create
      .serverSecurityLogic(librarian)
      .serverLogic((_, b) =>
        Future.successful(shelf.synchronized {
          if shelf.values.asScala.exists(e => e.title == b.title && e.author == b.author) then
            Left(Conflict(s"'${b.title}' by ${b.author} is already on the shelf"))
          else
            val book = add(b)
            Right((s"/books/${book.id}", book))
        })
      ),
    remove
      .serverSecurityLogic(librarian)
      .serverLogic((_, id) =>
        Future.successful(Option(shelf.get(id)) match
          case None => Left(NotFound(s"There is no book $id"))
          case Some(book) if book.author == "Frank Herbert" => Left(Conflict("That one stays on the shelf"))
          case Some(_) =>
            shelf.remove(id)
            Right(()))
      )
  )

  // start:docs
  val docs = OpenApiInterpreter().toOpenApi(endpoints.map(_.endpoint), "Books", "1.0")
  val endpointsWithDocs = endpoints ++ SwaggerUi[Future](docs)
  // end:docs

object BooksServer:
  /** The token of the example's librarian; set `BOOKS_TOKEN` to choose another. */
  val defaultToken = "let-me-in"

  @main def runBooks(args: String*): Unit =
    val port = CommandLine.port("runBooks", args)
    val token = sys.env.getOrElse("BOOKS_TOKEN", defaultToken)
    val binding =
      NettyServer().withPort(port).addEndpoints(BooksServer(token).endpointsWithDocs).start().stopOnShutdown()
    println(s"Books on http://localhost:${binding.port}/books   (changes need: Authorization: Bearer $token)")
    println(s"Its documentation, in Swagger UI: http://localhost:${binding.port}/docs")
    binding.awaitStop()
