package rapier.server.interceptor

import rapier.DecodeResult
import rapier.model.StatusCode
import rapier.server.ServerResponse

/** Where an input comes from, to describe it in messages. */
enum InputSource:
  case Path, Query, Header, Cookie, Body, ContentType, Request

/** An input of an endpoint, named as a client would understand it. */
final case class InputRef(source: InputSource, name: String):
  /** `query parameter 'limit'`. */
  def describe: String = source match
    case InputSource.Path => s"path parameter '$name'"
    case InputSource.Query => s"query parameter '$name'"
    case InputSource.Header => s"header '$name'"
    case InputSource.Cookie => s"cookie '$name'"
    case InputSource.Body => "the body"
    case InputSource.ContentType => "the Content-Type header"
    case InputSource.Request => if name.isEmpty then "the request" else name

  /** `query.limit`, `body`: a location for machine-readable reports. */
  def location: String = source match
    case InputSource.Path => s"path.$name"
    case InputSource.Query => s"query.$name"
    case InputSource.Header => s"header.$name"
    case InputSource.Cookie => s"cookie.$name"
    case InputSource.Body => "body"
    case InputSource.ContentType => "header.Content-Type"
    case InputSource.Request => "request"

/** One input that failed to decode, and how. */
final case class InputFailure(input: InputRef, failure: DecodeResult.Failure):
  def message: String = s"${input.describe} ${failure.describe}"

/** Every input of a request that failed to decode. `security` is true when they are security inputs. */
final case class DecodeFailure(endpoint: rapier.Endpoint[?, ?, ?, ?], failures: List[InputFailure], security: Boolean):
  def message: String = failures.map(_.message).mkString("; ")

/**
 * Answers a request whose inputs failed to decode. The default: 415 for a body of the wrong media type, 401 when
 * security inputs failed, 400 otherwise; the body lists every failure, naming each input but never repeating what
 * the client sent.
 */
trait DecodeFailureHandler:
  def apply(failure: DecodeFailure): ServerResponse

object DecodeFailureHandler:
  val default: DecodeFailureHandler = failure =>
    val status =
      if failure.failures.exists(_.input.source == InputSource.ContentType) then StatusCode.UnsupportedMediaType
      else if failure.security then StatusCode.Unauthorized
      else StatusCode.BadRequest
    ServerResponse.text(status, s"Invalid request: ${failure.message}")
