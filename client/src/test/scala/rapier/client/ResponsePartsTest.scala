package rapier.client

import rapier.client.internal.{JsonValues, ProblemReader, SetCookies}
import rapier.model.{CookieValueWithMeta, SameSite, StatusCode}

import java.time.Instant

/**
 * What the client reads of a response besides its outputs' codecs, problems and `Set-Cookie` values, and the
 * WebSockets it can't open.
 */
class ResponsePartsTest extends munit.FunSuite:
  test("a problem body is read with its errors and request id"):
    val body =
      """{"type":"about:blank","title":"Bad Request","status":400,"detail":"Invalid request",""" +
        """"errors":[{"location":"query.n","rule":"minimum","expected":"at least 1","message":"query.n \"-3\"\u00e9"}],""" +
        """"requestId":"r-1"}"""
    val p = ProblemReader.read(400, body, Nil)
    assertEquals(p.status, StatusCode.BadRequest)
    assertEquals(p.detail, "Invalid request")
    assertEquals(p.requestId, Some("r-1"))
    assertEquals(
      p.errors.map(e => (e.location, e.rule, e.expected, e.message)),
      List(
        ("query.n", "minimum", "at least 1", "query.n \"-3\"é")
      )
    )

  test("a body that is not a problem object is a problem of the status alone"):
    for body <- List("", "not json", "[1,2]", "{\"detail\": 3}", "{\"a\":", "{} trailing", "\"\\uZZZZ\"") do
      val p = ProblemReader.read(404, body, Nil)
      assertEquals((p.status, p.detail, p.errors), (StatusCode.NotFound, "", Nil), body)

  test("JSON values: nesting past the bound is refused, not a stack overflow"):
    assertEquals(JsonValues.parseOrNull("[" * 10000 + "]" * 10000), null)
    assertEquals(
      JsonValues.parseOrNull("""{"a":[1,2.5,-3e2,true,false,null,"x"]}"""),
      Map(
        "a" -> List(BigDecimal(1), BigDecimal("2.5"), BigDecimal("-3e2"), true, false, null, "x")
      )
    )

  test("Set-Cookie values are read back with their attributes"):
    val cookie = CookieValueWithMeta(
      "abc",
      expires = Some(Instant.parse("2030-01-02T03:04:05Z")),
      maxAge = Some(60),
      domain = Some("example.com"),
      path = Some("/"),
      secure = true,
      httpOnly = true,
      sameSite = Some(SameSite.Lax)
    )
    assertEquals(SetCookies.parseOrNull(cookie.render("session")), ("session", cookie))
    assertEquals(SetCookies.parseOrNull("id=\"q\"; path=/x"), ("id", CookieValueWithMeta("q", path = Some("/x"))))
    assertEquals(SetCookies.parseOrNull("no-equals-sign"), null)
    assertEquals(SetCookies.parseOrNull("bad=a b"), null)

  test("a base URI a client can't call is refused when the client is made, saying what to give"):
    import scala.concurrent.Future
    val e = rapier.endpoint.get.in("x").out(rapier.stringBody)
    for bad <- List("localhost:8080", "ftp://host", "http://", "http://host/?q=1", "not a uri") do
      val failure = intercept[IllegalArgumentException](e.client[Future](bad))
      assert(failure.getMessage.contains("http(s)://host[:port][/path]"), s"$bad: ${failure.getMessage}")
    e.client[Future]("https://example.com/api/")

  test("a WebSocket of a kind no client opens is refused when the client is made, naming the kind"):
    object Custom extends rapier.WebSocketKind[String]:
      def name = "custom pipe"
    val codec = rapier.WebSocketCodec.string
    val custom = rapier.endpoint.get.out(rapier.EndpointOutput.WebSocketBody(Custom, codec, codec))
    val failure = intercept[IllegalArgumentException](custom.client[rapier.server.Identity]("http://localhost:1"))
    assert(
      failure.getMessage.contains("a WebSocket whose pipe is a custom pipe, which no client opens"),
      failure.getMessage
    )
