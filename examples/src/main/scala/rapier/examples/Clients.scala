package rapier.examples

import rapier.client.*
import rapier.examples.readme.{NotFound, book}
import rapier.server.Identity

import scala.concurrent.Future

/** The README's endpoint called through Rapier's client: the same value the server serves. */
object Clients:
  // start:client
  // A function from the endpoint's inputs to its outputs: Right for the output, Left for the typed error. A response
  // that is neither fails the Future: a ClientException.ProblemAnswer for a request the server refused (with each
  // input that failed), an UndecodableResponse for one the endpoint can't read.
  def books(baseUri: String): ((Long, Option[String])) => Future[Either[NotFound, String]] =
    book.client[Future](baseUri) // baseUri: "http://localhost:8080"

  // Direct style: the call blocks until the answer.
  def bookNow(baseUri: String, id: Long): Either[NotFound, String] = book.client[Identity](baseUri)((id, None))
  // end:client
