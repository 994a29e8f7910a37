package rapier.server.interceptor

import rapier.DecodeResult
import rapier.model.{Header, HeaderNames, StatusCode}
import rapier.server.{Problem, ProblemRenderer, ServerResponse}

/**
 * Every input of a request that failed to decode. `security` is true when they are security inputs; `challenges`
 * are the `WWW-Authenticate` values of the endpoint's authentication inputs.
 */
final case class DecodeFailure(
    endpoint: rapier.Endpoint[?, ?, ?, ?],
    failures: List[InputFailure],
    security: Boolean,
    challenges: List[String] = Nil
):
  def message: String = failures.map(_.message).mkString("; ")

/**
 * Answers a request whose inputs failed to decode. The default: 401 (with the endpoint's `WWW-Authenticate`
 * challenges) when security inputs failed, 415 for a body of the wrong media type, 413 for a part over its limit,
 * 400 otherwise. The response is a
 * [[Problem]] listing every failure, each with its location, rule and expectation, but never what the client sent.
 */
trait DecodeFailureHandler:
  def apply(failure: DecodeFailure, render: ProblemRenderer): ServerResponse

object DecodeFailureHandler:
  val default: DecodeFailureHandler = (failure, render) =>
    val unauthorized =
      failure.security || failure.failures.exists(_.input.source == InputSource.Credentials)
    val status =
      if unauthorized then StatusCode.Unauthorized
      else if failure.failures.exists(_.input.source == InputSource.ContentType) then StatusCode.UnsupportedMediaType
      else if failure.failures.exists(_.failure.isInstanceOf[DecodeResult.TooLarge]) then StatusCode.ContentTooLarge
      else StatusCode.BadRequest
    val headers =
      if status == StatusCode.Unauthorized then failure.challenges.map(Header(HeaderNames.WwwAuthenticate, _)) else Nil
    render(
      Problem(
        status,
        s"Invalid request: ${failure.message}",
        failure.failures.flatMap(_.problemErrors),
        headers
      )
    )
