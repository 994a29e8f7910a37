package rapier.model

/** An HTTP status code (RFC 9110 §15), an opaque `Int` between 100 and 599. */
opaque type StatusCode = Int

object StatusCode:
  /**
   * A status code from its number.
   * @throws IllegalArgumentException
   *   outside 100–599
   */
  def apply(code: Int): StatusCode =
    require(code >= 100 && code <= 599, s"a status code is between 100 and 599, not $code")
    code

  val Continue: StatusCode = 100
  val SwitchingProtocols: StatusCode = 101
  val Ok: StatusCode = 200
  val Created: StatusCode = 201
  val Accepted: StatusCode = 202
  val NoContent: StatusCode = 204
  val ResetContent: StatusCode = 205
  val PartialContent: StatusCode = 206
  val MovedPermanently: StatusCode = 301
  val Found: StatusCode = 302
  val SeeOther: StatusCode = 303
  val NotModified: StatusCode = 304
  val TemporaryRedirect: StatusCode = 307
  val PermanentRedirect: StatusCode = 308
  val BadRequest: StatusCode = 400
  val Unauthorized: StatusCode = 401
  val PaymentRequired: StatusCode = 402
  val Forbidden: StatusCode = 403
  val NotFound: StatusCode = 404
  val MethodNotAllowed: StatusCode = 405
  val NotAcceptable: StatusCode = 406
  val RequestTimeout: StatusCode = 408
  val Conflict: StatusCode = 409
  val Gone: StatusCode = 410
  val LengthRequired: StatusCode = 411
  val PreconditionFailed: StatusCode = 412
  val ContentTooLarge: StatusCode = 413
  val UriTooLong: StatusCode = 414
  val UnsupportedMediaType: StatusCode = 415
  val RangeNotSatisfiable: StatusCode = 416
  val ExpectationFailed: StatusCode = 417
  val UnprocessableContent: StatusCode = 422
  val TooManyRequests: StatusCode = 429
  val RequestHeaderFieldsTooLarge: StatusCode = 431
  val InternalServerError: StatusCode = 500
  val NotImplemented: StatusCode = 501
  val BadGateway: StatusCode = 502
  val ServiceUnavailable: StatusCode = 503
  val GatewayTimeout: StatusCode = 504
  val HttpVersionNotSupported: StatusCode = 505

  private val reasons: Map[Int, String] = Map(
    100 -> "Continue",
    101 -> "Switching Protocols",
    200 -> "OK",
    201 -> "Created",
    202 -> "Accepted",
    204 -> "No Content",
    205 -> "Reset Content",
    206 -> "Partial Content",
    301 -> "Moved Permanently",
    302 -> "Found",
    303 -> "See Other",
    304 -> "Not Modified",
    307 -> "Temporary Redirect",
    308 -> "Permanent Redirect",
    400 -> "Bad Request",
    401 -> "Unauthorized",
    402 -> "Payment Required",
    403 -> "Forbidden",
    404 -> "Not Found",
    405 -> "Method Not Allowed",
    406 -> "Not Acceptable",
    408 -> "Request Timeout",
    409 -> "Conflict",
    410 -> "Gone",
    411 -> "Length Required",
    412 -> "Precondition Failed",
    413 -> "Content Too Large",
    414 -> "URI Too Long",
    415 -> "Unsupported Media Type",
    416 -> "Range Not Satisfiable",
    417 -> "Expectation Failed",
    422 -> "Unprocessable Content",
    429 -> "Too Many Requests",
    431 -> "Request Header Fields Too Large",
    500 -> "Internal Server Error",
    501 -> "Not Implemented",
    502 -> "Bad Gateway",
    503 -> "Service Unavailable",
    504 -> "Gateway Timeout",
    505 -> "HTTP Version Not Supported"
  )

  extension (status: StatusCode)
    def code: Int = status
    def isInformational: Boolean = status / 100 == 1
    def isSuccess: Boolean = status / 100 == 2
    def isRedirect: Boolean = status / 100 == 3
    def isClientError: Boolean = status / 100 == 4
    def isServerError: Boolean = status / 100 == 5

    /** The reason phrase of a registered code, or a generic one from its class. */
    def reason: String = reasons.getOrElse(
      status,
      status / 100 match
        case 1 => "Informational"
        case 2 => "Success"
        case 3 => "Redirection"
        case 4 => "Client Error"
        case _ => "Server Error"
    )

  given CanEqual[StatusCode, StatusCode] = CanEqual.derived
