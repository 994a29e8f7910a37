package rapier.server.spi

import rapier.model.{Header, HeaderNames, StatusCode}
import rapier.server.spi.RequestSyntax.Invalid

import scala.concurrent.duration.Duration

/**
 * What backends answer, by themselves, to a request they won't hand to the interpreter (a body over the limit, a
 * deadline past, a server shutting down). One place, so that every backend refuses with the same status and words;
 * the syntax a backend must refuse is [[RequestSyntax]]'s.
 */
object Refusals:
  val ShuttingDown: Invalid = Invalid(StatusCode.ServiceUnavailable, "The server is shutting down")

  /** An upload the server's disk budget for temporary files can't take now: the client may try again later. */
  val DiskBusy: Invalid = Invalid(
    StatusCode.ServiceUnavailable,
    "The server holds too many uploads on disk to take this one now",
    List(Header(HeaderNames.RetryAfter, "1"))
  )

  /** A body the server's [[BodyBudget]] can't hold now: the client may try again in a second. */
  val Busy: Invalid = Invalid(
    StatusCode.ServiceUnavailable,
    "The server holds too many request bodies to take this one now",
    List(Header(HeaderNames.RetryAfter, "1"))
  )
  val InvalidContentLength: Invalid = Invalid(StatusCode.BadRequest, "Invalid Content-Length")
  val BodyLongerThanLength: Invalid = Invalid(StatusCode.BadRequest, "The body is longer than its Content-Length")
  val InvalidBodyFraming: Invalid = Invalid(StatusCode.BadRequest, "The request body is not valid HTTP/1.1 framing")

  /**
   * The client closed its connection before its request body's end: the reader's error, answered nowhere, and never
   * a server error in the logs.
   */
  val BodyCutShort: Invalid = Invalid(StatusCode.BadRequest, "The connection closed before the request body's end")
  val UnsupportedExpectation: Invalid =
    Invalid(StatusCode.ExpectationFailed, "Only the 100-continue expectation is supported")

  def bodyTooLarge(limit: Long): Invalid =
    Invalid(StatusCode.ContentTooLarge, s"The body is larger than the limit of $limit bytes.")
  def lineTooLong(limit: Int): Invalid =
    Invalid(StatusCode.UriTooLong, s"The request line is longer than $limit bytes")
  def headerTooLarge(limit: Int): Invalid =
    Invalid(StatusCode.RequestHeaderFieldsTooLarge, s"The header section is larger than $limit bytes")
  def headTimeout(deadline: Duration): Invalid =
    Invalid(StatusCode.RequestTimeout, s"The request head did not arrive within $deadline")
  def bodyTimeout(deadline: Duration): Invalid =
    Invalid(StatusCode.RequestTimeout, s"The request body did not arrive within $deadline")

  /** How long a connection closing after a refusal keeps reading (and discarding) what its client still sends. */
  val LingerMillis = 2000L
