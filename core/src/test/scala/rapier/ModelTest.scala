package rapier

import rapier.model.*

class ModelTest extends munit.FunSuite:
  test("percent-decoding is strict"):
    assertEquals(PercentEncoding.decodeOrNull("a%20b", false), "a b")
    assertEquals(PercentEncoding.decodeOrNull("a+b", false), "a+b")
    assertEquals(PercentEncoding.decodeOrNull("a+b", true), "a b")
    assertEquals(PercentEncoding.decodeOrNull("%E2%9C%93", false), "✓")
    assertEquals(PercentEncoding.decodeOrNull("%e2%9c%93", false), "✓")
    for bad <- List("%", "%2", "%zz", "a%g0", "%C3%28", "%FF", "%ED%A0%80") do
      assertEquals(PercentEncoding.decodeOrNull(bad, false), null, bad)

  test("percent-decoding leaves raw non-ASCII text as it is"):
    assertEquals(PercentEncoding.decodeOrNull("żółw%20ok", false), "żółw ok")

  test("decoding a range without escapes returns the plain substring"):
    assertEquals(PercentEncoding.decodeOrNull("/abc/def", 5, 8, false), "def")

  test("query strings: order, repeats, empty values and empty pairs"):
    val q = QueryParams.parse("a=1&b=&c&&a=2").toOption.get
    assertEquals(q.toList, List("a" -> "1", "b" -> "", "c" -> "", "a" -> "2"))
    assertEquals(q.getAll("a"), List("1", "2"))
    assertEquals(q.count("a"), 2)
    assertEquals(q.get("b"), Some(""))
    assertEquals(q.get("z"), None)
    assertEquals(q.toMultiMap.keys.toList, List("a", "b", "c"))
    assert(QueryParams.parse("a=%zz").isLeft)
    assertEquals(QueryParams.parse(""), Right(QueryParams.empty))

  test("media types render once and match Content-Type values loosely"):
    val json = MediaType.ApplicationJson.charset("UTF-8")
    assertEquals(json.render, "application/json; charset=UTF-8")
    assert(MediaType.ApplicationJson.matchesContentType("Application/JSON ; charset=utf-8"))
    assert(!MediaType.ApplicationJson.matchesContentType("application/jsonx"))
    assert(!MediaType.ApplicationJson.matchesContentType("text/json"))
    assertEquals(
      MediaType.parse("text/html; Charset=\"ISO-8859-1\"; level=1"),
      Right(MediaType("text", "html", Some("ISO-8859-1"), List("level" -> "1")))
    )
    assert(MediaType.parse("nonsense").isLeft)

  test("header parameters: quoted values keep their ; and =, escapes removed, names without case"):
    val value = "form-data; Name=\"a;b=c\" ; ; filename=\"say \\\"hi\\\".txt\"; flag; size = 3 "
    assertEquals(
      HeaderParameters.all(value),
      List("name" -> "a;b=c", "filename" -> "say \"hi\".txt", "flag" -> "", "size" -> "3")
    )
    assertEquals(HeaderParameters.find(value, "NAME"), "a;b=c")
    assertEquals(HeaderParameters.find(value, "b"), null)
    assertEquals(HeaderParameters.find("text/plain", "charset"), null)
    assertEquals(HeaderParameters.find("a; x=\"open", "x"), "open")
    assertEquals(
      MediaType.parse("multipart/form-data; boundary=\"x;y\"").map(_.parameters),
      Right(List("boundary" -> "x;y"))
    )

  test("a Content-Type's charset: its charset parameter, the default without one, null for one the JVM doesn't know"):
    val utf16 = java.nio.charset.StandardCharsets.UTF_16
    assertEquals(
      Text.charsetOf("text/plain; charset=\"iso-8859-1\"", utf16),
      java.nio.charset.StandardCharsets.ISO_8859_1
    )
    assertEquals(Text.charsetOf("text/plain; CHARSET=utf-8", utf16), java.nio.charset.StandardCharsets.UTF_8)
    assertEquals(Text.charsetOf("text/plain; xcharset=utf-8", utf16), utf16)
    assertEquals(Text.charsetOf(null, utf16), utf16)
    assertEquals(Text.charsetOf("text/plain; charset=x-no-such-charset", utf16), null)
    assertEquals(Text.charsetOf("text/plain; charset=", utf16), null)

  test("cookies: parsing skips malformed pairs"):
    assertEquals(
      Cookie.parseHeader("a=1; b=\"two\"; bad; =x; c=3=4"),
      List(Cookie("a", "1"), Cookie("b", "two"), Cookie("c", "3=4"))
    )

  test("cookie values refuse characters that would break the header"):
    intercept[IllegalArgumentException](CookieValueWithMeta("a;b"))
    intercept[IllegalArgumentException](CookieValueWithMeta("a b"))
    assertEquals(
      CookieValueWithMeta("v", expires = Some(java.time.Instant.EPOCH)).render("n"),
      "n=v; Expires=Thu, 1 Jan 1970 00:00:00 GMT"
    )

  test("methods are tokens; the standard ones are shared constants"):
    assert(Method("GET").name eq Method.GET.name)
    assertEquals(Method("PURGE").name, "PURGE")
    intercept[IllegalArgumentException](Method("BAD METHOD"))
    intercept[IllegalArgumentException](Method(""))

  test("status codes know their class and reason"):
    assertEquals(StatusCode.NotFound.reason, "Not Found")
    assertEquals(StatusCode(299).reason, "Success")
    assert(StatusCode(503).isServerError)
    intercept[IllegalArgumentException](StatusCode(600))

  test("printable escapes control characters for logs"):
    assertEquals(Tokens.printable("a\r\nb\u0000"), "a\\u000d\\u000ab\\u0000")
    assert(!Tokens.isFieldValue("a\nb"))
    assert(Tokens.isFieldValue("a\tb"))

  test("Text.isUtf8 tells well-formed UTF-8 from bytes that are not"):
    import rapier.model.Text
    assert(Text.isUtf8("plain ascii".getBytes("UTF-8")))
    assert(Text.isUtf8("héllo ✓ 𝄞".getBytes("UTF-8")))
    assert(Text.isUtf8(Array.emptyByteArray))
    assert(!Text.isUtf8(Array[Byte](0x68, 0xc3.toByte, 0x28)), "a broken two-byte sequence")
    assert(!Text.isUtf8(Array[Byte](0xed.toByte, 0xa0.toByte, 0x80.toByte)), "a surrogate")
    assert(!Text.isUtf8(Array[Byte](0x61, 0xe2.toByte, 0x9c.toByte)), "cut short")
