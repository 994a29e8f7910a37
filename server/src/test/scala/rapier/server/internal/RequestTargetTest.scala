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

  test("segments are split and decoded"):
    assertEquals(RequestTarget.segmentsOrNull("/a/b%20c//d/", 1, 12), List("a", "b c", "", "d", ""))
    assertEquals(RequestTarget.segmentsOrNull("/", 1, 1), Nil)
    assertEquals(RequestTarget.segmentsOrNull("/a/%zz", 1, 6), null)
