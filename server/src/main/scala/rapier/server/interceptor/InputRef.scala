package rapier.server.interceptor

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
