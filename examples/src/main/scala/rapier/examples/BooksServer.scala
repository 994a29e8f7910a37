package rapier.examples

import rapier.examples.Books.*
import rapier.netty.NettyServer
import rapier.server.*

import java.util.concurrent.ConcurrentSkipListMap
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.Future
import scala.jdk.CollectionConverters.*

/**
 * The logic of the books API, over an in-memory shelf. Books by Frank Herbert can't be removed: that's the
 * example's way to show a second error on one endpoint.
 */
final class BooksServer:
  private val shelf = ConcurrentSkipListMap[Long, Book]()
  private val ids = AtomicLong()

  add(NewBook("Dune", "Frank Herbert", 1965))
  add(NewBook("The Left Hand of Darkness", "Ursula K. Le Guin", 1969))

  private def add(b: NewBook): Book = shelf.synchronized {
    val book = Book(ids.incrementAndGet(), b.title, b.author, b.year)
    shelf.put(book.id, book)
    book
  }

  val endpoints: List[ServerEndpoint[Future]] = List(
    list.serverLogicSuccess(limit =>
      Future.successful(shelf.values.asScala.take(limit.getOrElse(Int.MaxValue)).map(_.render).mkString("\n"))
    ),
    find.serverLogic(id =>
      Future.successful(Option(shelf.get(id)).map(_.render).toRight(NotFound(s"There is no book $id")))
    ),
    create.serverLogic(b =>
      Future.successful(shelf.synchronized {
        if shelf.values.asScala.exists(e => e.title == b.title && e.author == b.author) then
          Left(Conflict(s"'${b.title}' by ${b.author} is already on the shelf"))
        else
          val book = add(b)
          Right((s"/books/${book.id}", book.render))
      })
    ),
    remove.serverLogic(id =>
      Future.successful(Option(shelf.get(id)) match
        case None => Left(NotFound(s"There is no book $id"))
        case Some(book) if book.author == "Frank Herbert" => Left(Conflict("That one stays on the shelf"))
        case Some(_) =>
          shelf.remove(id)
          Right(()))
    )
  )

object BooksServer:
  @main def runBooks(port: Int = 8080): Unit =
    val binding = NettyServer().withPort(port).addEndpoints(BooksServer().endpoints).start().stopOnShutdown()
    println(s"Books on http://localhost:${binding.port}/books   (Ctrl-C stops)")
    binding.awaitStop()
