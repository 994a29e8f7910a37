package rapier.server.cors

import rapier.model.{Method, Tokens}

import scala.concurrent.duration.FiniteDuration

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol): which web pages, by their origin, may call the
 * server's endpoints from a browser and read the answers. Set with `ServerOptions.withCors`.
 *
 * A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered by the server itself, before
 * any endpoint's logic: 204 with what is allowed, or 403 saying what is not. Every other request is served as
 * without CORS, its response carrying `Access-Control-Allow-Origin` when its `Origin` is allowed (404s and 405s
 * included, so a page can read them), and `Vary: Origin` whenever the answer depends on the origin.
 *
 * CORS decides what a browser lets a page read, not who may call: a request from an origin that isn't allowed still
 * reaches its endpoint (a browser sends simple requests without asking first). Authentication stays the endpoints'.
 *
 * @param origins
 *   the origins allowed, each as a browser sends it (`https://app.example.com`, with the port when not the scheme's)
 * @param methods
 *   the methods a preflight may ask for; None: those of the endpoints at the request's path (what a 405 would allow)
 * @param headers
 *   the request headers a preflight may ask for
 * @param exposedHeaders
 *   response headers a page may read beyond the CORS-safelisted ones (`Access-Control-Expose-Headers`)
 * @param credentials
 *   whether a page may send cookies or HTTP authentication and read the answer (`Access-Control-Allow-Credentials`):
 *   for listed origins (`AllowedOrigins.Only`); never with every origin allowed; with origins a function decides
 *   (`AllowedOrigins.Matching`) only when also `credentialsForMatching`
 * @param credentialsForMatching
 *   that credentials go to the origins a `Matching` function allows, which is then the only thing between a web site
 *   and its visitors' cookies: a loose function (a suffix checked without its dot, a pattern without anchors) lets any
 *   site call. One that allows an origin of no one's (`https://rapier-cors-check.invalid`, the opaque `null`) is
 *   refused at start all the same
 * @param maxAge
 *   how long a browser may keep a preflight's answer (`Access-Control-Max-Age`); None: the browser's default
 */
final case class Cors(
    origins: AllowedOrigins,
    methods: Option[List[Method]] = None,
    headers: AllowedHeaders = AllowedHeaders.All,
    exposedHeaders: List[String] = Nil,
    credentials: Boolean = false,
    maxAge: Option[FiniteDuration] = None,
    credentialsForMatching: Boolean = false
):
  require(
    !(credentials && origins == AllowedOrigins.All),
    "CORS with credentials and every origin allowed would let any web site call with its visitors' cookies: " +
      "list the origins (AllowedOrigins.Only)"
  )
  origins match
    case matching: AllowedOrigins.Matching if credentials =>
      require(
        credentialsForMatching,
        "CORS with credentials and origins a function decides (AllowedOrigins.Matching): a function that allows more " +
          "than meant lets any web site call with its visitors' cookies. List the origins (AllowedOrigins.Only), or " +
          "say that the function is strict with withCredentialsForMatching"
      )
      val foreign = Cors.Foreign.filter(matching.allows)
      require(
        foreign.isEmpty,
        s"CORS with credentials: the origin function allows ${foreign.mkString(" and ")}, an origin of no one's: it " +
          "would allow any web site with its visitors' cookies"
      )
    case _ => ()
  require(
    exposedHeaders.forall(Tokens.isToken),
    s"CORS exposed headers must be header names: ${exposedHeaders.filterNot(Tokens.isToken).mkString(", ")}"
  )
  headers match
    case AllowedHeaders.Only(names) =>
      require(names.forall(Tokens.isToken), s"CORS allowed headers must be header names: ${names.mkString(", ")}")
    case AllowedHeaders.All => ()
  require(maxAge.forall(_.toSeconds >= 0), "CORS maxAge must not be negative")

  def withMethods(ms: Method*): Cors = copy(methods = Some(ms.toList))
  def withHeaders(names: String*): Cors = copy(headers = AllowedHeaders.Only(names.toSet))
  def withExposedHeaders(names: String*): Cors = copy(exposedHeaders = names.toList)
  def withCredentials: Cors = copy(credentials = true)

  /** Credentials for the origins a `Matching` function allows: see `credentialsForMatching`. */
  def withCredentialsForMatching: Cors = copy(credentials = true, credentialsForMatching = true)
  def withMaxAge(age: FiniteDuration): Cors = copy(maxAge = Some(age))

object Cors:
  /** Pages from these origins only (`https://app.example.com`). */
  def allowing(origin: String, more: String*): Cors = Cors(AllowedOrigins.Only((origin +: more).toSet))

  /** Pages from any origin, without credentials: public APIs. */
  val anyOrigin: Cors = Cors(AllowedOrigins.All)

  // Origins no page has (a reserved top-level domain, RFC 6761 §6.4; the opaque origin): a function that allows one
  // allows anything
  private val Foreign = List("https://rapier-cors-check.invalid", "null")

/** Which origins may read the server's answers from a browser. */
enum AllowedOrigins:
  /** Every origin: answers say `*`. */
  case All

  /** These origins, compared exactly (an origin is lower case as browsers send it; `null` is an opaque origin). */
  case Only(origins: Set[String])

  /** The origins `allows` says yes to, such as every subdomain of one's own. */
  case Matching(allows: String => Boolean)

  def allows(origin: String): Boolean = this match
    case All => true
    case Only(origins) => origins.contains(origin)
    case Matching(allows) => allows(origin)

/** Which request headers a preflight may ask for. */
enum AllowedHeaders:
  /** Whatever it asks for: the answer names them. */
  case All

  /** These, in any case. */
  case Only(names: Set[String])
