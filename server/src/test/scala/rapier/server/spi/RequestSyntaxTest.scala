package rapier.server.spi

import rapier.server.spi.RequestSyntax.*

class RequestSyntaxTest extends munit.FunSuite:
  test("versions: 1.1 and 1.0 are served, other well-formed ones are 505, the rest 400"):
    assertEquals(version("HTTP/1.1"), null)
    assertEquals(version("HTTP/1.0"), null)
    for v <- List("HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "HTTP/3.0") do assertEquals(version(v), UnsupportedVersion, v)
    for v <- List("http/1.1", "HTTP/1.10", "HTTP/1", "HTTP/1.1 ", "FOO/1.1", "HTTP/a.b", "", "HTTP/11") do
      assertEquals(version(v), InvalidVersion, v)

  test("methods are tokens"):
    for m <- List("GET", "POST", "M-SEARCH", "PROPFIND", "x~!") do assertEquals(method(m), null, m)
    for m <- List("", "G ET", "GE\u0000T", "GET/", "G\u00c9T", "(GET)") do assertEquals(method(m), InvalidMethod, m)

  test("targets: origin and absolute forms of visible ASCII, without a fragment, and the asterisk form for OPTIONS"):
    for t <- List("/", "/a/b?c=d&e", "/%20", "http://h/a", "HTTPS://h:1/", "/a|b{c}") do
      assertEquals(target(t, "GET"), null, t)
    assertEquals(target("*", "OPTIONS"), null)
    for m <- List("GET", "POST", "options") do assertEquals(target("*", m), AsteriskNotOptions, m)
    for t <- List("/a b", "/a\tb", "/a\u0000", "/caf\u00e9", "/a#b", "/a\u007f") do
      assertEquals(target(t, "GET"), InvalidTargetChars, t)
    for t <- List("a/b", "host:443", "ftp://h/", "", "**") do assertEquals(target(t, "GET"), InvalidTargetForm, t)

  test("hosts: a name, an IPv4 or IP literal, an optional port up to 65535"):
    val valid = List(
      "",
      "x",
      "example.com",
      "example.com:8080",
      "example.com:",
      "10.0.0.1:1",
      "[::1]",
      "[::1]:443",
      "a-b_c~d",
      "%41b",
      "x:65535",
      "[v1.fe]"
    )
    for h <- valid do assertEquals(host(h), null, h)
    val invalid = List(
      "x y",
      "x/y",
      "u@x",
      "x:ab",
      "x:65536",
      "x:1:2",
      "[::1",
      "[]",
      "[::1]x",
      "x\u0000",
      "caf\u00e9",
      "x:99999999999"
    )
    for h <- invalid do assertEquals(host(h), InvalidHost, h)

  test("transfer codings: chunked alone, empty list elements allowed, anything else not implemented"):
    for v <- List("chunked", "Chunked", " chunked ", ", chunked", "chunked,", "") do
      assertEquals(chunkedOnly(v), null, v)
    for v <- List("gzip, chunked", "identity,chunked", "x, chunked", "\"chunked\"") do
      assertEquals(chunkedOnly(v), UnsupportedCoding, v)
    assertEquals(UnsupportedCoding.status.code, 501)

  test("a head's Host and codings: one valid Host on HTTP/1.1, at most one otherwise, chunked alone"):
    val none = java.util.Collections.emptyList[String]
    assertEquals(head(1, "x", http11 = true, none), null)
    assertEquals(head(0, null, http11 = false, none), null)
    assertEquals(head(0, null, http11 = true, none), MissingHost)
    assertEquals(head(2, "x", http11 = false, none), DuplicateHost)
    assertEquals(head(1, "x y", http11 = true, none), InvalidHost)
    assertEquals(head(1, "x", http11 = true, java.util.List.of("chunked", "gzip, chunked")), UnsupportedCoding)

  test("expectations: 100-continue on HTTP/1.1, anything else a 417, nothing on HTTP/1.0"):
    assert(expectsContinue("100-Continue", http10 = false))
    assert(!expectsContinue("100-continue", http10 = true))
    assert(!expectsContinue(null, http10 = false))
    assert(unsupportedExpectation("magic", http10 = false))
    assert(!unsupportedExpectation("magic", http10 = true))
    assert(!unsupportedExpectation("100-continue", http10 = false))

  test("response rules: Content-Length but on 1xx, 204 and 304; the Connection header for closing and HTTP/1.0"):
    import ResponseRules.*
    assertEquals(List(100, 200, 204, 304, 404).map(hasContentLength), List(false, true, false, false, true))
    assertEquals(connectionHeader(keepAlive = false, http10 = false), "close")
    assertEquals(connectionHeader(keepAlive = false, http10 = true), "close")
    assertEquals(connectionHeader(keepAlive = true, http10 = true), "keep-alive")
    assertEquals(connectionHeader(keepAlive = true, http10 = false), null)
