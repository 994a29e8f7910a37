package rapier.examples.readme

import rapier.*
import rapier.model.StatusCode
import rapier.netty.NettyServer
import rapier.server.*
import scala.concurrent.Future

case class NotFound(message: String)

val book: Endpoint[Unit, (Long, Option[String]), NotFound, String] =
  endpoint.get
    .in("books" / path[Long]("id")) // GET /books/{id}
    .in(query[Option[String]]("lang")) //   ?lang=...
    .errorOut(oneOf[NotFound](oneOfVariant(StatusCode.NotFound, stringBody.mapTo[NotFound])))
    .out(stringBody)

val served = book.serverLogic[Future] { (id, lang) =>
  Future.successful(if id == 1 then Right(s"Dune (${lang.getOrElse("en")})") else Left(NotFound(s"no book $id")))
}

@main def run(): Unit =
  NettyServer().withPort(8080).addEndpoint(served).start().stopOnShutdown().awaitStop()
