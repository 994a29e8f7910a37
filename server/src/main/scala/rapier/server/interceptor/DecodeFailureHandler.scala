package rapier.server.interceptor

import rapier.{DecodeResult, ValidationError}
import rapier.model.{Header, HeaderNames, StatusCode}
import rapier.server.{Problem, ProblemRenderer, ServerResponse}

/** Where an input comes from, to describe it in messages. */
enum InputSource:
  case Path, Query, Header, Cookie, Body, ContentType, Request

  /** Credentials: an authentication input (`auth.bearer`, `auth.basic`, an API key). */
  case Credentials

/**
 * An input of an endpoint, named as a client would understand it. For credentials, `name` names the schemes
 * (`Bearer`, `Basic or Bearer`) and `at` where they are read (`header.Authorization`).
 */
final case class InputRef(source: InputSource, name: String, at: String = ""):
  /** `query parameter 'limit'`. */
  def describe: String = source match
    case InputSource.Path => s"path parameter '$name'"
    case InputSource.Query => s"query parameter '$name'"
    case InputSource.Header => s"header '$name'"
    case InputSource.Cookie => s"cookie '$name'"
    case InputSource.Body => "the body"
    case InputSource.ContentType => "the Content-Type header"
    case InputSource.Request => if name.isEmpty then "the request" else name
    case InputSource.Credentials => s"$name authentication"

  /** `query.limit`, `body`: a location for machine-readable reports. */
  def location: String = source match
    case InputSource.Path => s"path.$name"
    case InputSource.Query => s"query.$name"
    case InputSource.Header => s"header.$name"
    case InputSource.Cookie => s"cookie.$name"
    case InputSource.Body => "body"
    case InputSource.ContentType => "header.Content-Type"
    case InputSource.Request => "request"
    case InputSource.Credentials => at

/** One input that failed to decode, and how. */
final case class InputFailure(input: InputRef, failure: DecodeResult.Failure):
  def message: String = failure match
    case DecodeResult.InvalidValue(errors) => errors.map(messageOf).mkString("; ")
    case _ => s"${input.describe} ${failure.describe}"

  /** The failure as problem-details errors: one per broken rule, each with its location. */
  def problemErrors: List[Problem.Error] = failure match
    case DecodeResult.InvalidValue(errors) =>
      errors.map(e => Problem.Error(ValidationError.render(input.location, e.path), e.rule, e.expected, messageOf(e)))
    case other =>
      DecodeResult.asValidationErrors(other).map { e =>
        val rule = if input.source == InputSource.ContentType && e.rule == "const" then "mediaType" else e.rule
        Problem.Error(input.location, rule, e.expected, message)
      }

  private def messageOf(e: ValidationError): String =
    if e.path.isEmpty then s"${input.describe} ${e.message}"
    else s"${e.pathString} in ${input.describe} must be ${e.expected}"

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
