package rapier.model

/**
 * An HTTP request method: a token such as `GET` or `PURGE`, compared case-sensitively (RFC 9110 §9.1).
 *
 * An opaque `String`: a method costs nothing to carry, and the standard methods are shared constants, so a backend
 * that hands over its own interned names is matched by reference first.
 */
opaque type Method = String

object Method:
  val GET: Method = "GET"
  val HEAD: Method = "HEAD"
  val POST: Method = "POST"
  val PUT: Method = "PUT"
  val DELETE: Method = "DELETE"
  val PATCH: Method = "PATCH"
  val OPTIONS: Method = "OPTIONS"
  val TRACE: Method = "TRACE"
  val CONNECT: Method = "CONNECT"

  /** The standard methods, in the order `Allow` headers list them. */
  val standard: List[Method] = List(GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT)

  /**
   * A method from its name; the name must be a non-empty token (RFC 9110 §5.6.2).
   * @throws IllegalArgumentException
   *   if it is not
   */
  def apply(name: String): Method =
    require(Tokens.isToken(name), s"not a valid HTTP method name: '${Tokens.printable(name)}'")
    standard.find(_ == name).getOrElse(name)

  /** A method from a name the caller has already validated, e.g. one parsed by an HTTP server. */
  def unsafe(name: String): Method = name

  extension (method: Method) def name: String = method

  given CanEqual[Method, Method] = CanEqual.derived
