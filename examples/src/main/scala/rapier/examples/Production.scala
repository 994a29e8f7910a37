package rapier.examples

import rapier.netty.NettyServer
import rapier.server.cors.Cors

import scala.concurrent.duration.*

/** The books API with what a deployment behind a browser front end adds: CORS. */
object Production:
  def server(books: BooksServer): NettyServer =
    // start:cors
    NettyServer()
      .addEndpoints(books.endpoints)
      .withCors(
        Cors
          .allowing("https://books.example.com", "http://localhost:5173")
          .withCredentials // the front end sends its session cookie
          .withExposedHeaders("Location")
          .withMaxAge(10.minutes)
      )
    // end:cors
