package rapier.testkit

import rapier.*
import rapier.model.*
import rapier.server.*

import java.util.UUID
import scala.concurrent.Future

/** Every kind of input, read over a real socket: path, query, headers, cookies, the escape hatch. */
trait InputTests extends ServerTestSupport:
  private def ok[I](e: Endpoint[Unit, I, Unit, String])(f: I => String): ServerEndpoint[Future] =
    e.serverLogicSuccess(i => Future.successful(f(i)))

  test(anyStyle("fixed path segments match exactly")):
    withServer(ok(endpoint.get.in("api" / "v1" / "status").out(stringBody))(_ => "up")) { t =>
      assertEquals(t.get("/api/v1/status").body, "up")
      assertEquals(t.get("/api/v1").status, 404)
      assertEquals(t.get("/api/v1/status/more").status, 404)
      assertEquals(t.get("/api/V1/status").status, 404)
    }

  test(anyStyle("path captures decode into typed values, in order")):
    val e = endpoint.get.in("users" / path[Long]("user") / "posts" / path[UUID]("post")).out(stringBody)
    withServer(ok(e)((u, p) => s"$u:$p")) { t =>
      val id = UUID.randomUUID()
      assertEquals(t.get(s"/users/42/posts/$id").body, s"42:$id")
    }

  test(anyStyle("an invalid path parameter is a 400 that names it and does not repeat it")):
    withServer(ok(endpoint.get.in("users" / path[Int]("id")).out(stringBody))(_.toString)) { t =>
      val r = t.get("/users/notanumber")
      assertEquals(r.status, 400)
      assert(r.body.contains("path parameter 'id'"), r.body)
      assert(!r.body.contains("notanumber"), r.body)
    }

  test(anyStyle("numeric path parameters: signs, encodings, limits and validators")):
    val e = endpoint.get.in("n" / path[Long]("id").validate(Validator.min(-5L))).out(stringBody)
    withServer(ok(e)(_.toString)) { t =>
      assertEquals(t.get("/n/9223372036854775807").body, "9223372036854775807")
      assertEquals(t.get("/n/+7").body, "7")
      assertEquals(t.get("/n/-5").body, "-5")
      assertEquals(t.get("/n/%34%32").body, "42")
      assertEquals(t.get("/n/9223372036854775808").status, 400)
      assertEquals(t.get("/n/12a").status, 400)
      val tooSmall = t.get("/n/-6")
      assertEquals(tooSmall.status, 400)
      assertEquals(tooSmall.problem.detail, "Invalid request: path parameter 'id' must be at least -5")
    }

  test(anyStyle("path captures are percent-decoded, unicode included")):
    withServer(ok(endpoint.get.in("echo" / path[String]("text")).out(stringBody))(identity)) { t =>
      assertEquals(t.get("/echo/hello%20world").body, "hello world")
      assertEquals(t.get("/echo/%E2%9C%93%20%C5%BC%C3%B3%C5%82w").body, "✓ żółw")
      assertEquals(t.get("/echo/a%2Bb").body, "a+b")
      assertEquals(t.get("/echo/a+b").body, "a+b")
    }

  test(anyStyle("fixed segments with non-ASCII characters match their percent-encoded form")):
    withServer(ok(endpoint.get.in("żółw" / "ok").out(stringBody))(_ => "found")) { t =>
      assertEquals(t.get("/%C5%BC%C3%B3%C5%82w/ok").body, "found")
      assertEquals(t.get("/%c5%bc%c3%b3%c5%82w/ok").body, "found")
    }

  test(anyStyle("an invalid percent-encoding in a path parameter is a 400")):
    withServer(ok(endpoint.get.in("echo" / path[String]("text")).out(stringBody))(identity)) { t =>
      assertEquals(t.rawExchange("GET /echo/%zz HTTP/1.1\r\nHost: x\r\n\r\n").status, 400)
      assertEquals(t.rawExchange("GET /echo/%C3%28 HTTP/1.1\r\nHost: x\r\n\r\n").status, 400)
    }

  test(anyStyle("a path parameter never holds '/', '\\', '.', '..' or control characters, whatever their encoding")):
    withServer(
      ok(endpoint.get.in("echo" / path[String]("text")).out(stringBody))(identity),
      ok(endpoint.get.in("files" / paths).out(stringBody))(_.mkString("|"))
    ) { t =>
      for bad <-
          List(
            "..",
            ".",
            "%2e%2e",
            "%2E.",
            ".%2e",
            "%2e",
            "a%2Fb",
            "a%2fb",
            "%2F",
            "a%00b",
            "%0d%0aX:1",
            "%7f",
            "%1b"
          ) ++
            List("..%5C..%5Cetc", "a%5cb")
      do
        val r = t.rawExchange(s"GET /echo/$bad HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(r.status, 400, bad)
        assert(r.body.contains("path.text"), r.body)
      // An empty segment but the last would make what follows absolute once joined: /files//etc/passwd
      for bad <- List("a/../b", "a/%2e%2e/b", "./a", "a/.", "a%2Fb/c", "a/%00", "/etc/passwd", "a//b", "a/%5C/b")
      do assertEquals(t.rawExchange(s"GET /files/$bad HTTP/1.1\r\nHost: x\r\n\r\n").status, 400, bad)
      assertEquals(t.get("/files/a/b/").body, "a|b|", "a last empty segment: a directory")
      assertEquals(t.get("/echo/...").body, "...")
      assertEquals(t.get("/echo/a.b").body, "a.b")
      assertEquals(t.get("/echo/.hidden").body, ".hidden")
      assertEquals(t.get("/files/a/.well-known/b..c").body, "a|.well-known|b..c")
    }

  test(anyStyle("a path parameter may opt in to encoded slashes, and still refuses dot segments")):
    withServer(ok(endpoint.get.in("keys" / path[String]("key").allowEncodedSlash).out(stringBody))(identity)) { t =>
      assertEquals(t.get("/keys/a%2Fb%2fc").body, "a/b/c")
      // What decodes to a path leaving where it is joined: dot parts, an absolute path, a backslash
      for bad <- List("..%2F..%2Fetc", "a%2F..%2Fb", "a%2F.", "%2Fetc%2Fpasswd", "a%5C..", "..")
      do assertEquals(t.rawExchange(s"GET /keys/$bad HTTP/1.1\r\nHost: x\r\n\r\n").status, 400, bad)
      assertEquals(t.rawExchange("GET /keys/a%00 HTTP/1.1\r\nHost: x\r\n\r\n").status, 400)
      assertEquals(t.rawExchange("GET /keys/a/b HTTP/1.1\r\nHost: x\r\n\r\n").status, 404)
    }

  test(anyStyle("the rest of the path is captured as segments, possibly none")):
    withServer(ok(endpoint.get.in("files" / paths).out(stringBody))(_.mkString("|"))) { t =>
      assertEquals(t.get("/files/a/b%20c/d.txt").body, "a|b c|d.txt")
      assertEquals(t.get("/files").body, "")
    }

  test(anyStyle("the root path has an endpoint of its own")):
    withServer(ok(endpoint.get.out(stringBody))(_ => "root")) { t =>
      assertEquals(t.get("/").body, "root")
      assertEquals(t.get("/x").status, 404)
    }

  test(anyStyle("a trailing slash is a different path")):
    withServer(ok(endpoint.get.in("books").out(stringBody))(_ => "books")) { t =>
      assertEquals(t.get("/books").status, 200)
      assertEquals(t.get("/books/").status, 404)
    }

  test(anyStyle("a required query parameter is decoded, and its absence named")):
    withServer(ok(endpoint.get.in("q").in(query[Int]("limit")).out(stringBody))(_.toString)) { t =>
      assertEquals(t.get("/q?limit=10").body, "10")
      val r = t.get("/q")
      assertEquals(r.status, 400)
      assertEquals(r.problem.detail, "Invalid request: query parameter 'limit' is missing")
    }

  test(anyStyle("an optional query parameter is None when absent")):
    withServer(ok(endpoint.get.in("q").in(query[Option[Int]]("page")).out(stringBody))(_.toString)) { t =>
      assertEquals(t.get("/q").body, "None")
      assertEquals(t.get("/q?page=3").body, "Some(3)")
      assertEquals(t.get("/q?page=x").status, 400)
    }

  test(anyStyle("a repeated query parameter gives all its values in order")):
    withServer(ok(endpoint.get.in("q").in(query[List[String]]("tag")).out(stringBody))(_.mkString(","))) { t =>
      assertEquals(t.get("/q?tag=b&tag=a&other=1&tag=c").body, "b,a,c")
      assertEquals(t.get("/q").body, "")
    }

  test(anyStyle("a single-valued query parameter given twice is a 400")):
    withServer(ok(endpoint.get.in("q").in(query[Int]("n")).out(stringBody))(_.toString)) { t =>
      val r = t.get("/q?n=1&n=2")
      assertEquals(r.status, 400)
      assert(r.body.contains("query parameter 'n' is given 2 times"), r.body)
    }

  test(anyStyle("an invalid query value is a 400 that says what was expected and does not repeat it")):
    withServer(ok(endpoint.get.in("q").in(query[Boolean]("flag")).out(stringBody))(_.toString)) { t =>
      val r = t.get("/q?flag=%3Cscript%3E")
      assertEquals(r.status, 400)
      assertEquals(r.problem.detail, "Invalid request: query parameter 'flag' is invalid: expected true or false")
    }

  test(anyStyle("query values are percent-decoded, with + as a space")):
    val e = endpoint.get.in("q").in(query[String]("text")).in(query[String]("other")).out(stringBody)
    withServer(ok(e)((a, b) => s"[$a][$b]")) { t =>
      assertEquals(t.get("/q?text=a+b%2Bc&other=%E2%9C%93").body, "[a b+c][✓]")
      assertEquals(t.get("/q?other=&text=x%26y%3Dz").body, "[x&y=z][]")
    }

  test(anyStyle("all query parameters can be read at once")):
    withServer(ok(endpoint.get.in("q").in(queryParams).out(stringBody))(_.toList.mkString(";"))) { t =>
      assertEquals(t.get("/q?a=1&b=2&a=3").body, "(a,1);(b,2);(a,3)")
      assertEquals(t.get("/q").body, "")
    }

  test(anyStyle("a malformed query string is a 400 for endpoints that read the query")):
    withServer(ok(endpoint.get.in("q").in(query[String]("a")).out(stringBody))(identity)) { t =>
      val r = t.rawExchange("GET /q?a=%ZZ HTTP/1.1\r\nHost: x\r\n\r\n")
      assertEquals(r.status, 400)
      assert(r.body.contains("query parameter 'a'"), r.body)
    }

  test(anyStyle("validators on inputs reject values with the rule broken")):
    val e = endpoint.get.in("q").in(query[Int]("limit").validate(Validator.inRange(1, 100))).out(stringBody)
    withServer(ok(e)(_.toString)) { t =>
      assertEquals(t.get("/q?limit=100").body, "100")
      val r = t.get("/q?limit=1000")
      assertEquals(r.status, 400)
      assertEquals(r.problem.detail, "Invalid request: query parameter 'limit' must be at most 100")
    }

  test(anyStyle("every failing input is reported, not only the first")):
    val e = endpoint.get.in("q").in(query[Int]("a")).in(query[Int]("b")).in(header[Int]("X-C")).out(stringBody)
    withServer(ok(e)(_.toString)) { t =>
      val r = t.get("/q?a=x", "X-C" -> "y")
      assertEquals(r.status, 400)
      assert(r.body.contains("query parameter 'a' is invalid"), r.body)
      assert(r.body.contains("query parameter 'b' is missing"), r.body)
      assert(r.body.contains("header 'X-C' is invalid"), r.body)
    }

  test(anyStyle("headers are read by case-insensitive name")):
    withServer(ok(endpoint.get.in("h").in(header[String]("X-Trace-Id")).out(stringBody))(identity)) { t =>
      assertEquals(t.get("/h", "x-trace-id" -> "abc").body, "abc")
      assertEquals(t.get("/h", "X-TRACE-ID" -> "def").body, "def")
      val r = t.get("/h")
      assertEquals(r.status, 400)
      assertEquals(r.problem.detail, "Invalid request: header 'X-Trace-Id' is missing")
    }

  test(anyStyle("optional and repeated headers")):
    val e = endpoint.get.in("h").in(header[Option[Int]]("X-Opt")).in(header[List[String]]("X-Many")).out(stringBody)
    withServer(ok(e)((o, m) => s"$o $m")) { t =>
      assertEquals(t.get("/h").body, "None List()")
      assertEquals(t.get("/h", "X-Opt" -> "5", "X-Many" -> "a", "X-Many" -> "b").body, "Some(5) List(a, b)")
    }

  test(anyStyle("a fixed header must be present with its value")):
    withServer(ok(endpoint.get.in("h").in(header("X-Api-Version", "2")).out(stringBody))(_ => "v2")) { t =>
      assertEquals(t.get("/h", "X-Api-Version" -> "2").body, "v2")
      assertEquals(t.get("/h", "X-Api-Version" -> "1").status, 400)
      assertEquals(t.get("/h").status, 400)
    }

  test(anyStyle("all headers can be read at once")):
    withServer(ok(endpoint.get.in("h").in(headers).out(stringBody))(_.filter(_.is("x-one")).map(_.value).mkString)) {
      t => assertEquals(t.get("/h", "X-One" -> "1").body, "1")
    }

  test(anyStyle("cookies are read from the Cookie header")):
    val e = endpoint.get.in("c").in(cookie[String]("session")).in(cookie[Option[Int]]("n")).out(stringBody)
    withServer(ok(e)((s, n) => s"$s $n")) { t =>
      assertEquals(t.get("/c", "Cookie" -> "n=7; session=abc").body, "abc Some(7)")
      assertEquals(t.get("/c", "Cookie" -> "session=\"quoted\"").body, "quoted None")
      val r = t.get("/c")
      assertEquals(r.status, 400)
      assertEquals(r.problem.detail, "Invalid request: cookie 'session' is missing")
    }

  test(anyStyle("all cookies can be read at once")):
    withServer(
      ok(endpoint.get.in("c").in(cookies).out(stringBody))(_.map(c => s"${c.name}=${c.value}").mkString(","))
    ) {
      t => assertEquals(t.get("/c", "Cookie" -> "a=1; b=2").body, "a=1,b=2")
    }

  test(anyStyle("the escape hatch sees the raw request")):
    val e =
      endpoint.get.in("x").in(extractFromRequest(r => s"${r.method.name} ${r.uri} ${r.header("X-A")}")).out(stringBody)
    withServer(ok(e)(identity)) { t =>
      assertEquals(t.get("/x?y=1", "X-A" -> "b").body, "GET /x?y=1 Some(b)")
    }

  test(anyStyle("an endpoint without a method serves any, and can read which")):
    withServer(ok(endpoint.in("any").in(requestMethod).out(stringBody))(_.name)) { t =>
      assertEquals(t.get("/any").body, "GET")
      assertEquals(t.send("PATCH", "/any", "x").body, "PATCH")
      assertEquals(t.send("PURGE", "/any", null).body, "PURGE")
    }

  test(anyStyle("inputs map to a case class")):
    val point = query[Int]("x").and(query[Int]("y")).mapTo[InputTests.Point]
    withServer(ok(endpoint.get.in("p").in(point).out(stringBody))(_.toString)) { t =>
      assertEquals(t.get("/p?x=1&y=2").body, "Point(1,2)")
    }

  test(anyStyle("a mapping that rejects its inputs is a 400 naming them")):
    val range = query[Int]("from")
      .and(query[Int]("to"))
      .mapDecode((f, t) => if f <= t then DecodeResult.Value(f to t) else DecodeResult.Error("from <= to"))(r =>
        (r.start, r.end)
      )
    withServer(ok(endpoint.get.in("r").in(range).out(stringBody))(_.size.toString)) { t =>
      assertEquals(t.get("/r?from=1&to=3").body, "3")
      val r = t.get("/r?from=3&to=1")
      assertEquals(r.status, 400)
      assertEquals(
        r.problem.detail,
        "Invalid request: query parameter 'from', query parameter 'to' is invalid: expected from <= to"
      )
    }

  test(anyStyle("every usual type decodes from a path segment")):
    val e = endpoint.get
      .in("t" / path[Short]("s") / path[Byte]("b") / path[Double]("d") / path[Float]("f"))
      .in(path[BigDecimal]("bd") / path[BigInt]("bi") / path[java.time.LocalDate]("date") /
        path[java.time.Instant]("i"))
      .out(stringBody)
    withServer(ok(e)(_.toList.mkString(","))) { t =>
      assertEquals(
        t.get("/t/-3/7/1.5/2.25/12.3456789012345678901/123456789012345678901234/2024-02-29/2024-01-31T12:00:00Z").body,
        "-3,7,1.5,2.25,12.3456789012345678901,123456789012345678901234,2024-02-29,2024-01-31T12:00:00Z"
      )
      assertEquals(t.get("/t/40000/7/1.5/2.25/1/1/2024-02-29/2024-01-31T12:00:00Z").status, 400)
      assertEquals(t.get("/t/1/7/NaN/2.25/1/1/2024-02-29/2024-01-31T12:00:00Z").status, 400)
      assertEquals(t.get("/t/1/7/1/2.25/1/1/2023-02-29/2024-01-31T12:00:00Z").status, 400)
    }

  test(anyStyle("Scala 3 enums decode by case name")):
    withServer(ok(endpoint.get.in("color" / path[InputTests.Color]("c")).out(stringBody))(_.toString)) { t =>
      assertEquals(t.get("/color/Green").body, "Green")
      assertEquals(t.get("/color/green").body, "Green")
      val r = t.get("/color/Purple")
      assertEquals(r.status, 400)
      assertEquals(
        r.problem.detail,
        "Invalid request: path parameter 'c' is invalid: expected one of: Red, Green, Blue"
      )
    }

object InputTests:
  final case class Point(x: Int, y: Int)
  enum Color:
    case Red, Green, Blue
