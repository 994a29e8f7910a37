package rapier.model

/** One header field: a name and a value, as received or to be sent. Names compare case-insensitively via `is`. */
final case class Header(name: String, value: String):
  def is(otherName: String): Boolean = name.equalsIgnoreCase(otherName)
  override def toString: String = s"$name: $value"

/** Names of the header fields Rapier itself reads or writes. */
object HeaderNames:
  val Accept = "Accept"
  val AccessControlAllowCredentials = "Access-Control-Allow-Credentials"
  val AccessControlAllowHeaders = "Access-Control-Allow-Headers"
  val AccessControlAllowMethods = "Access-Control-Allow-Methods"
  val AccessControlAllowOrigin = "Access-Control-Allow-Origin"
  val AccessControlExposeHeaders = "Access-Control-Expose-Headers"
  val AccessControlMaxAge = "Access-Control-Max-Age"
  val AccessControlRequestHeaders = "Access-Control-Request-Headers"
  val AccessControlRequestMethod = "Access-Control-Request-Method"
  val AcceptRanges = "Accept-Ranges"
  val Allow = "Allow"
  val Authorization = "Authorization"
  val CacheControl = "Cache-Control"
  val Connection = "Connection"
  val Upgrade = "Upgrade"
  val ContentLength = "Content-Length"
  val ContentRange = "Content-Range"
  val ContentType = "Content-Type"
  val Cookie = "Cookie"
  val Date = "Date"
  val Expect = "Expect"
  val Host = "Host"
  val IfRange = "If-Range"
  val Location = "Location"
  val Origin = "Origin"
  val Range = "Range"
  val RetryAfter = "Retry-After"
  val SetCookie = "Set-Cookie"
  val TransferEncoding = "Transfer-Encoding"
  val UserAgent = "User-Agent"
  val Vary = "Vary"
  val WwwAuthenticate = "WWW-Authenticate"
  val XContentTypeOptions = "X-Content-Type-Options"
  val XRequestId = "X-Request-Id"
