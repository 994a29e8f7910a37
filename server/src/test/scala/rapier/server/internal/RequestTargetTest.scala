package rapier.server.internal

class RequestTargetTest extends munit.FunSuite:
  test("the path of origin-form and absolute-form targets"):
    assertEquals(RequestTarget.pathStart("/a/b?c"), 0)
    assertEquals(RequestTarget.pathStart("http://host:80/a?b"), 14)
    assertEquals(RequestTarget.pathStart("HTTPS://host"), 12)
    assertEquals(RequestTarget.pathStart("*"), -1)
    assertEquals(RequestTarget.pathStart("host:443"), -1)
    assertEquals(RequestTarget.pathEnd("/a/b?c", 0), 4)
    assertEquals(RequestTarget.pathEnd("/a/b#f", 0), 4)
    assertEquals(RequestTarget.pathEnd("/a/b", 0), 4)

  test("segments are split and decoded; an empty one but the last is refused"):
    assertEquals(RequestTarget.segmentsOrNull("/a/b%20c/d/", 1, 11), List("a", "b c", "d", ""))
    assertEquals(RequestTarget.segmentsOrNull("/a/b%20c//d/", 1, 12), null)
    assertEquals(RequestTarget.segmentsOrNull("/", 1, 1), Nil)
    assertEquals(RequestTarget.segmentsOrNull("/a/%zz", 1, 6), null)

  test("a segment that may hold encoded slashes is a relative path that never leaves where it is joined"):
    for safe <- List("a", "a/b", "a//b", "a/.well-known", "...", "a..b") do
      assert(RequestTarget.isSafeSegment(safe, encodedSlash = true), safe)
    for unsafe <- List("..", ".", "../a", "a/..", "a/./b", "/etc", "a\\b", "a\u0000", "a/\u007f") do
      assert(!RequestTarget.isSafeSegment(unsafe, encodedSlash = true), unsafe)
    assert(!RequestTarget.isSafeSegment("a/b"), "a slash without the opt-in")
