package rapier.server.internal

import rapier.model.StatusCode
import rapier.server.internal.RequestSyntax.Invalid

import scala.concurrent.duration.Duration

/**
 * What backends answer, by themselves, to a request they won't hand to the interpreter (a body over the limit, a
 * deadline past, a server shutting down), and the HTTP/1.1 rules they apply alike around it. One place, so that every
 * backend refuses with the same status and words.
 */
object Refusals:
  val ShuttingDown: Invalid = Invalid(StatusCode.ServiceUnavailable, "The server is shutting down")
  val InvalidContentLength: Invalid = Invalid(StatusCode.BadRequest, "Invalid Content-Length")
  val BodyLongerThanLength: Invalid = Invalid(StatusCode.BadRequest, "The body is longer than its Content-Length")
  val InvalidBodyFraming: Invalid = Invalid(StatusCode.BadRequest, "The request body is not valid HTTP/1.1 framing")
  val UnsupportedExpectation: Invalid =
    Invalid(StatusCode.ExpectationFailed, "Only the 100-continue expectation is supported")

  def bodyTooLarge(limit: Long): Invalid =
    Invalid(StatusCode.ContentTooLarge, s"The body is larger than the limit of $limit bytes.")
  def headTimeout(deadline: Duration): Invalid =
    Invalid(StatusCode.RequestTimeout, s"The request head did not arrive within $deadline")
  def bodyTimeout(deadline: Duration): Invalid =
    Invalid(StatusCode.RequestTimeout, s"The request body did not arrive within $deadline")

  /** How long a connection closing after a refusal keeps reading (and discarding) what its client still sends. */
  val LingerMillis = 2000L

  /** Whether an `Expect` value asks for `100 Continue` (HTTP/1.0 has no expectations, RFC 9110 §10.1.1). */
  def expectsContinue(expect: String | Null, http10: Boolean): Boolean =
    expect != null && !http10 && "100-continue".equalsIgnoreCase(expect.nn.trim)

  /** An `Expect` other than `100-continue` on HTTP/1.1: RFC 9110 §10.1.1 asks for a 417. */
  def unsupportedExpectation(expect: String | Null, http10: Boolean): Boolean =
    expect != null && !http10 && !"100-continue".equalsIgnoreCase(expect.nn.trim)

  /** Whether a response with `status` carries a Content-Length (RFC 9110 §8.6: not 1xx, 204 or 304). */
  def hasContentLength(status: Int): Boolean = status >= 200 && status != 204 && status != 304
