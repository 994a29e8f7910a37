package rapier.testkit

import rapier.server.spi.Refusals
import rapier.server.spi.RequestSyntax.*

/**
 * Requests that break HTTP/1.1's framing or syntax (RFC 9112, RFC 9110), each with the one status a server must
 * answer it with before closing the connection. Most are 400; the exceptions are the statuses the RFCs name: 414 and
 * 431 for the limits, 501 for a transfer coding the server does not implement (RFC 9112 §6.1), 505 for a protocol
 * version it does not serve.
 *
 * Every request here is complete as far as a lenient parser would see it, so that a server reading it leniently
 * would answer it with a 2xx, or take what follows it on the connection for its body or a new request.
 *
 * The targets exist in [[FramingTests]]: `GET /hello`, `POST /echo`.
 */
object MalformedRequests:
  /** A request and the refusal every server answers it with: its status, and its words as the problem's detail. */
  final case class Case(name: String, request: String, problem: Invalid):
    def status: Int = problem.status.code

  private val get = "GET /hello HTTP/1.1\r\nHost: x\r\n"
  private val post = "POST /echo HTTP/1.1\r\nHost: x\r\n"
  private val chunkedPost = post + "Transfer-Encoding: chunked\r\n\r\n"

  private def withLength(header: String, problem: Invalid = Refusals.InvalidContentLength) =
    Case(s"Content-Length: $header", s"${post}Content-Length: $header\r\n\r\nabc", problem)
  private def withCoding(header: String, problem: Invalid = InvalidTransferEncoding) =
    Case(s"Transfer-Encoding: $header", s"${post}Transfer-Encoding: $header\r\n\r\n3\r\nabc\r\n0\r\n\r\n", problem)
  private def withChunks(name: String, chunks: String) =
    Case(s"chunks: $name", chunkedPost + chunks, Refusals.InvalidBodyFraming)
  private def withHeader(name: String, line: String, problem: Invalid) =
    Case(s"header: $name", s"$get$line\r\n\r\n", problem)
  private def withRequestLine(name: String, line: String, problem: Invalid) =
    Case(s"request line: $name", s"$line\r\nHost: x\r\n\r\n", problem)

  val contentLength: List[Case] = List(
    Case(
      "Content-Length twice, different values",
      s"${post}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
      DuplicateContentLength
    ),
    Case(
      "Content-Length twice, the same value",
      s"${post}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
      DuplicateContentLength
    ),
    withLength("3, 3", DuplicateContentLength),
    withLength("3, 4", DuplicateContentLength),
    withLength("+3"),
    withLength("-3"),
    withLength("0x3"),
    withLength("3a"),
    withLength("\"3\""),
    withLength(""),
    withLength("3 4"),
    withLength("3.0"),
    withLength("1e1"),
    withLength("99999999999999999999999"),
    Case("Content-Length with whitespace before the colon", s"${post}Content-Length : 3\r\n\r\nabc", InvalidFieldName),
    Case("Content-Length with a tab before the colon", s"${post}Content-Length\t: 3\r\n\r\nabc", InvalidFieldName)
  )

  val transferEncoding: List[Case] = List(
    Case(
      "chunked and Content-Length",
      s"${post}Transfer-Encoding: chunked\r\nContent-Length: 8\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      LengthAndChunked
    ),
    Case(
      "Content-Length and chunked",
      s"${post}Content-Length: 8\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      LengthAndChunked
    ),
    withCoding("gzip"),
    withCoding("identity"),
    withCoding("chunked, identity"),
    withCoding("chunked, chunked"),
    withCoding("gzip, chunked", UnsupportedCoding),
    withCoding("x-custom, chunked", UnsupportedCoding),
    withCoding("\"chunked\""),
    withCoding("xchunked"),
    withCoding("chunked;q=1"),
    withCoding(""),
    Case(
      "Transfer-Encoding twice",
      s"${post}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      InvalidTransferEncoding
    ),
    Case(
      "Transfer-Encoding with whitespace before the colon",
      s"${post}Transfer-Encoding : chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      InvalidFieldName
    ),
    Case(
      "Transfer-Encoding on HTTP/1.0",
      "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      InvalidTransferEncoding
    ),
    Case(
      "Transfer-Encoding with a vertical tab",
      s"${post}Transfer-Encoding:\u000bchunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      InvalidFieldValue
    )
  )

  val chunks: List[Case] = List(
    withChunks("a size with a leading space", " 3\r\nabc\r\n0\r\n\r\n"),
    withChunks("a size with a trailing space", "3 \r\nabc\r\n0\r\n\r\n"),
    withChunks("a size in 0x form", "0x3\r\nabc\r\n0\r\n\r\n"),
    withChunks("a negative size", "-3\r\nabc\r\n0\r\n\r\n"),
    withChunks("a size with a plus sign", "+3\r\nabc\r\n0\r\n\r\n"),
    withChunks("a size that is not hex", "g\r\nabc\r\n0\r\n\r\n"),
    withChunks("an empty size", "\r\nabc\r\n0\r\n\r\n"),
    withChunks("a size that overflows", "fffffffffffffffffff\r\nabc\r\n0\r\n\r\n"),
    withChunks("more data than the size", "3\r\nabcd\r\n0\r\n\r\n"),
    withChunks("no CRLF after the data", "3\r\nabc0\r\n\r\n"),
    withChunks("a bare LF after the size", "3\nabc\r\n0\r\n\r\n"),
    withChunks("a bare LF after the data", "3\r\nabc\n0\r\n\r\n"),
    withChunks("a bare LF in an extension", "3;x\nabc\r\n0\r\n\r\n"),
    withChunks("a bare CR in an extension", "3;x\ry\r\nabc\r\n0\r\n\r\n"),
    withChunks("a NUL in an extension", "3;x\u0000\r\nabc\r\n0\r\n\r\n"),
    withChunks("a quoted extension value across a line end", "3;x=\"a\r\nb\"\r\nabc\r\n0\r\n\r\n"),
    withChunks("a bare LF in the trailer section", "3\r\nabc\r\n0\r\nX-T: 1\n\r\n"),
    withChunks("a trailer field without a colon", "3\r\nabc\r\n0\r\nX-T 1\r\n\r\n"),
    withChunks("a trailer field with whitespace before the colon", "3\r\nabc\r\n0\r\nX-T : 1\r\n\r\n"),
    withChunks("a bare CR after the data", "3\r\nabc\r0\r\n\r\n")
  )

  val requestLine: List[Case] = List(
    Case("request line: bare LF line ends", "GET /hello HTTP/1.1\nHost: x\n\n", BareLineEnd),
    Case("request line: a bare CR", "GET /hello HTTP/1.1\rHost: x\r\n\r\n", BareLineEnd),
    withRequestLine("a NUL in the target", "GET /hel\u0000lo HTTP/1.1", InvalidTargetChars),
    withRequestLine("a control character in the method", "G\u0001ET /hello HTTP/1.1", InvalidMethod),
    withRequestLine("two spaces after the method", "GET  /hello HTTP/1.1", InvalidSeparator),
    withRequestLine("a tab as separator", "GET\t/hello HTTP/1.1", InvalidSeparator),
    withRequestLine("a space in the target", "GET /hel lo HTTP/1.1", InvalidSeparator),
    withRequestLine("a fragment in the target", "GET /hello#top HTTP/1.1", InvalidTargetChars),
    withRequestLine("a target that is not a path", "GET hello HTTP/1.1", InvalidTargetForm),
    withRequestLine("the asterisk form on GET", "GET * HTTP/1.1", AsteriskNotOptions),
    withRequestLine("the authority form on GET", "GET x:80 HTTP/1.1", InvalidTargetForm),
    withRequestLine("leading whitespace", " GET /hello HTTP/1.1", InvalidSeparator),
    withRequestLine("trailing whitespace", "GET /hello HTTP/1.1 ", InvalidSeparator),
    withRequestLine("no version", "GET /hello", InvalidVersion),
    withRequestLine("a lower-case protocol name", "GET /hello http/1.1", InvalidVersion),
    withRequestLine("a version of two digits", "GET /hello HTTP/1.10", InvalidVersion),
    withRequestLine("a version without minor", "GET /hello HTTP/1", InvalidVersion),
    withRequestLine("another protocol", "GET /hello FOO/1.1", InvalidVersion),
    withRequestLine("HTTP/1.2", "GET /hello HTTP/1.2", UnsupportedVersion),
    withRequestLine("HTTP/2.0", "GET /hello HTTP/2.0", UnsupportedVersion),
    withRequestLine("HTTP/0.9", "GET /hello HTTP/0.9", UnsupportedVersion),
    withRequestLine("too long", s"GET /hello?q=${"a" * 9000} HTTP/1.1", Refusals.lineTooLong(8192))
  )

  val headers: List[Case] = List(
    withHeader("obs-fold", "X-A: a\r\n b", ObsoleteFold),
    Case("header: obs-fold on the first field", "GET /hello HTTP/1.1\r\n Host: x\r\n\r\n", InvalidFieldName),
    // A parser that folds reads no Content-Length: the 38 bytes after the head are a second request to it, and a body
    // to whatever in front of it read the length.
    Case(
      "header: obs-fold hiding a Content-Length",
      s"${post}Foo: bar\r\n Content-Length: 38\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nX: y\r\n\r\n",
      ObsoleteFold
    ),
    withHeader("no colon", "X-A b", InvalidFieldName),
    withHeader("an empty name", ": b", InvalidFieldName),
    withHeader("a space in the name", "X A: b", InvalidFieldName),
    withHeader("a separator in the name", "X(A): b", InvalidFieldName),
    withHeader("a byte past ASCII in the name", "X-\u00c1: b", InvalidFieldName),
    withHeader("a NUL in the value", "X-A: a\u0000b", InvalidFieldValue),
    withHeader("a bare CR in the value", "X-A: a\rb", InvalidFieldValue),
    withHeader("a control character in the value", "X-A: a\u0001b", InvalidFieldValue),
    withHeader("a DEL in the value", "X-A: a\u007fb", InvalidFieldValue),
    withHeader("a bare LF", "X-A: b\nX-B: c", BareLineEnd),
    withHeader("too many", (1 to 2000).map(i => s"X-$i: v").mkString("\r\n"), Refusals.headerTooLarge(16384)),
    withHeader("one too long", s"X-A: ${"v" * 20000}", Refusals.headerTooLarge(16384))
  )

  val host: List[Case] = List(
    Case("Host missing on HTTP/1.1", "GET /hello HTTP/1.1\r\n\r\n", MissingHost),
    Case("Host missing beside an absolute target", "GET http://x/hello HTTP/1.1\r\n\r\n", MissingHost),
    Case("Host twice", "GET /hello HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", DuplicateHost),
    Case("Host twice, the same value", "GET /hello HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n", DuplicateHost),
    Case("Host as a list", "GET /hello HTTP/1.1\r\nHost: x, y\r\n\r\n", InvalidHost),
    Case("Host with a space", "GET /hello HTTP/1.1\r\nHost: x y\r\n\r\n", InvalidHost),
    Case("Host with a path", "GET /hello HTTP/1.1\r\nHost: x/y\r\n\r\n", InvalidHost),
    Case("Host with user info", "GET /hello HTTP/1.1\r\nHost: u@x\r\n\r\n", InvalidHost),
    Case("Host with a port that is not a number", "GET /hello HTTP/1.1\r\nHost: x:ab\r\n\r\n", InvalidHost),
    Case("Host with a port out of range", "GET /hello HTTP/1.1\r\nHost: x:65536\r\n\r\n", InvalidHost),
    Case("Host twice on HTTP/1.0", "GET /hello HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n", DuplicateHost)
  )

  /** Whether a refusal's words are the case's, limits aside (a server's own limits are in its words). */
  def sameWords(said: String, expected: String): Boolean =
    said.replaceAll("[0-9]+", "N") == expected.replaceAll("[0-9]+", "N")

  val all: List[Case] = contentLength ++ transferEncoding ++ chunks ++ requestLine ++ headers ++ host

  /** Variations RFC 9112 allows, each with the body `POST /echo` must answer (empty for `GET /hello`: "hello"). */
  final case class Legal(name: String, request: String, body: String)

  val legal: List[Legal] = List(
    Legal("no space after the colon", "GET /hello HTTP/1.1\r\nHost:x\r\n\r\n", "hello"),
    // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before a request line
    Legal("an empty line before the request line", "\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n", "hello"),
    Legal("a field with an empty value", "GET /hello HTTP/1.1\r\nHost: x\r\nX-Empty:\r\n\r\n", "hello"),
    Legal("lower- and upper-case names", "GET /hello HTTP/1.1\r\nhOsT: x\r\nX-LOWER-upper: 1\r\n\r\n", "hello"),
    Legal("spaces and tabs around values", "GET /hello HTTP/1.1\r\nHost: \t x \t\r\nX-A:\ta b\t\r\n\r\n", "hello"),
    Legal("an empty Host", "GET /hello HTTP/1.1\r\nHost:\r\n\r\n", "hello"),
    Legal("a Host with a port", "GET /hello HTTP/1.1\r\nHost: example.com:8080\r\n\r\n", "hello"),
    Legal("an IPv6 Host", "GET /hello HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", "hello"),
    Legal("HTTP/1.0 without Host", "GET /hello HTTP/1.0\r\n\r\n", "hello"),
    Legal("the absolute form", "GET http://x/hello HTTP/1.1\r\nHost: x\r\n\r\n", "hello"),
    Legal("a Content-Length with surrounding spaces", s"${post}Content-Length:  3 \r\n\r\nabc", "abc"),
    Legal("a Content-Length with leading zeros", s"${post}Content-Length: 003\r\n\r\nabc", "abc"),
    Legal(
      "an empty element before chunked",
      s"${post}Transfer-Encoding: , chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      "abc"
    ),
    Legal("chunked in mixed case", s"${post}Transfer-Encoding: ChUnKeD\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "abc"),
    Legal("a last chunk of several zeros", s"${chunkedPost}3\r\nabc\r\n000\r\n\r\n", "abc"),
    Legal("whitespace before a chunk extension", s"${chunkedPost}3 ;x\r\nabc\r\n0\r\n\r\n", "abc"),
    Legal("a Content-Length between tabs", s"${post}Content-Length:\t3\t\r\n\r\nabc", "abc"),
    Legal("chunk sizes in upper-case hex with zeros", s"${chunkedPost}00A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
    Legal("chunk extensions", s"${chunkedPost}3;name=value;flag\r\nabc\r\n0;last=\"yes\"\r\n\r\n", "abc"),
    Legal("trailer fields", s"${chunkedPost}3\r\nabc\r\n0\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n", "abc"),
    Legal("obs-text in a value", "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: caf\u00e9\r\n\r\n", "hello")
  )

  /**
   * Requests outside the grammar that are served anyway, because what is wrong with them can't change how the
   * message is framed: the connection stays usable and what follows is read as the next request.
   */
  val tolerated: List[Legal] = List(
    // RFC 9112 §7.1.1: a recipient ignores the chunk extensions it doesn't recognize; they are not parsed.
    Legal("a chunk extension without a name", s"${chunkedPost}3;\r\nabc\r\n0\r\n\r\n", "abc")
  )
