package rapier.server

import rapier.model.{Header, HeaderNames, StatusCode}

import java.nio.charset.StandardCharsets

/**
 * An error response as data, in the shape of RFC 9457 problem details: what Rapier itself answers when a request
 * fails to decode, matches no endpoint, is too large, or meets an exception. A [[ProblemRenderer]] turns it into a
 * response; `ServerOptions.withProblemRenderer` replaces the renderer for all of them at once.
 *
 * @param status
 *   the status code
 * @param detail
 *   a sentence about this occurrence, for a human; never quotes what the client sent
 * @param errors
 *   each input that failed and how: where (`query.limit`, `body.items[2].price`), which rule, what it expects
 * @param headers
 *   headers the response needs beside the body (`Allow`, `WWW-Authenticate`)
 * @param requestId
 *   the id the server's log gives this request, when it logged something about it (a 500)
 */
final case class Problem(
    status: StatusCode,
    detail: String,
    errors: List[Problem.Error] = Nil,
    headers: List[Header] = Nil,
    requestId: Option[String] = None,
    title: Option[String] = None,
    `type`: String = "about:blank"
):
  /** The title: the given one, or the status code's reason phrase (as RFC 9457 asks for `about:blank`). */
  def titleOrReason: String = title.getOrElse(status.reason)

object Problem:
  /**
   * One failed input: `location` is where (`query.limit`, `header.Authorization`, `body.items[2].price`), `rule` the
   * rule it broke (`required`, `format`, `minimum`, …), `expected` what the rule requires, `message` a sentence
   * about it.
   */
  final case class Error(location: String, rule: String, expected: String, message: String)

/** Renders a [[Problem]] as a response. */
trait ProblemRenderer:
  def apply(problem: Problem): ServerResponse

object ProblemRenderer:
  val ProblemJson = "application/problem+json"

  /**
   * `application/problem+json` (RFC 9457): `type`, `title`, `status`, `detail`, and the extension members `errors`
   * (when inputs failed) and `requestId` (when the log has the request).
   */
  val json: ProblemRenderer = problem =>
    val b = new java.lang.StringBuilder(128 + 96 * problem.errors.size)
    b.append("{\"type\":")
    Json.quote(b, problem.`type`)
    b.append(",\"title\":")
    Json.quote(b, problem.titleOrReason)
    b.append(",\"status\":").append(problem.status.code)
    b.append(",\"detail\":")
    Json.quote(b, problem.detail)
    if problem.errors.nonEmpty then
      b.append(",\"errors\":[")
      var first = true
      problem.errors.foreach { e =>
        if !first then b.append(',')
        first = false
        b.append("{\"location\":")
        Json.quote(b, e.location)
        b.append(",\"rule\":")
        Json.quote(b, e.rule)
        b.append(",\"expected\":")
        Json.quote(b, e.expected)
        b.append(",\"message\":")
        Json.quote(b, e.message)
        b.append('}')
      }
      b.append(']')
    problem.requestId.foreach { id =>
      b.append(",\"requestId\":")
      Json.quote(b, id)
    }
    b.append('}')
    response(problem, ProblemJson, b.toString)

  /** Plain text: the title, the detail, then one line per failed input. */
  val plainText: ProblemRenderer = problem =>
    val b = new java.lang.StringBuilder(problem.titleOrReason).append(": ").append(problem.detail)
    problem.errors.foreach(e => b.append("\n  ").append(e.message))
    problem.requestId.foreach(id => b.append("\n(request id ").append(id).append(')'))
    response(problem, "text/plain; charset=UTF-8", b.toString)

  // What a client sent may be quoted in no problem, but a browser must not read one as anything but its type either
  private def response(problem: Problem, contentType: String, body: String): ServerResponse =
    val r = ServerResponse.empty(problem.status.code, 2 + problem.headers.size)
    r.addHeader(HeaderNames.ContentType, contentType)
    r.addHeader(HeaderNames.XContentTypeOptions, "nosniff")
    problem.headers.foreach(h => r.addHeader(h.name, h.value))
    r.setBody(body.getBytes(StandardCharsets.UTF_8))
    r

/** The little JSON the server writes by itself: strings, escaped per RFC 8259 §7. */
private[server] object Json:
  private val hex = "0123456789abcdef"

  def quote(b: java.lang.StringBuilder, s: String): Unit =
    b.append('"')
    var i = 0
    while i < s.length do
      val c = s.charAt(i)
      c match
        case '"' => b.append("\\\"")
        case '\\' => b.append("\\\\")
        case '\n' => b.append("\\n")
        case '\r' => b.append("\\r")
        case '\t' => b.append("\\t")
        case _ if c < 0x20 || c == 0x2028 || c == 0x2029 =>
          b.append("\\u").append(hex.charAt((c >> 12) & 15)).append(hex.charAt((c >> 8) & 15))
          b.append(hex.charAt((c >> 4) & 15)).append(hex.charAt(c & 15))
        case _ => b.append(c)
      i += 1
    b.append('"')
