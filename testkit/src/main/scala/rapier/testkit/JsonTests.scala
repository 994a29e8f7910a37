package rapier.testkit

import com.github.plokhotnyuk.jsoniter_scala.core.readFromString
import org.slf4j.event.Level
import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.model.StatusCode
import rapier.server.*
import rapier.server.interceptor.ExceptionHandler
import rapier.testkit.TestModel.*

import scala.concurrent.Future

/** JSON bodies, typed errors, validation that reports every failure, and the problem+json error responses. */
trait JsonTests extends ServerTestSupport:
  private val json = "Content-Type" -> "application/json"

  private val echo = endpoint.post
    .in("orders")
    .in(jsonBody[Order])
    .out(jsonBody[Order])
    .serverLogicSuccess[Future](o => Future.successful(o.copy(id = o.id + 1)))

  private val checked =
    given Schema[Order] = TestModel.validatedOrder
    endpoint.post
      .in("checked")
      .in(query[Int]("limit").validate(Validator.inRange(1, 100)))
      .in(header[Option[String]]("X-Tag").validate(Validator.maxLength(3).forOption))
      .in(jsonBody[Order])
      .out(stringBody)
      .serverLogicSuccess[Future]((limit, _, o) => Future.successful(s"$limit ${o.lines.size}"))

  private val lookup = endpoint.get
    .in("orders" / path[Long]("id"))
    .errorOut(
      oneOf[NotFound | Conflict](
        oneOfVariant(StatusCode.NotFound, jsonBody[NotFound]),
        oneOfVariant(StatusCode.Conflict, jsonBody[Conflict])
      )
    )
    .out(jsonBody[Order])
    .serverLogic[Future] { id =>
      Future.successful(
        if id == 1 then Right(order(Line("a", 1, 2)))
        else if id == 2 then Left(Conflict("locked"))
        else Left(NotFound(s"order $id"))
      )
    }

  /** The same model with circe's codecs, derived as its documentation shows. */
  private object Circe:
    given io.circe.Codec[Status] = io.circe.Codec.AsObject.derived
    given io.circe.Codec[Line] = io.circe.Codec.AsObject.derived
    given io.circe.Codec[Order] = io.circe.Codec.AsObject.derived

    val echo = endpoint.post
      .in("circe" / "orders")
      .in(rapier.json.circe.jsonBody[Order])
      .out(rapier.json.circe.jsonBody[Order])
      .serverLogicSuccess[Future](o => Future.successful(o.copy(id = o.id + 1)))

    def write(o: Order): String = io.circe.syntax.EncoderOps(o).asJson.noSpaces
    def read(json: String): Order = io.circe.jawn.decode[Order](json).fold(throw _, identity)

  /** The same model with zio-json's codecs. */
  private object ZioJson:
    given zio.json.JsonCodec[Status] = zio.json.DeriveJsonCodec.gen
    given zio.json.JsonCodec[Line] = zio.json.DeriveJsonCodec.gen
    given zio.json.JsonCodec[Order] = zio.json.DeriveJsonCodec.gen

    val echo = endpoint.post
      .in("zio" / "orders")
      .in(rapier.json.ziojson.jsonBody[Order])
      .out(rapier.json.ziojson.jsonBody[Order])
      .serverLogicSuccess[Future](o => Future.successful(o.copy(id = o.id + 1)))

    def write(o: Order): String = zio.json.EncoderOps(o).toJson
    def read(json: String): Order =
      zio.json.DecoderOps(json).fromJson[Order].fold(e => throw AssertionError(e), identity)

  private val sample = order(Line("pen", 2, BigDecimal("1.50")), Line("ink", 1, BigDecimal("7")))

  test(anyStyle("a JSON body round trip: decoded from the request's bytes, encoded into the response's")):
    withServer(echo) { t =>
      val r = t.post("/orders", TestModel.json(sample), json)
      assertEquals(r.status, 200)
      assertEquals(r.header("Content-Type"), Some("application/json"))
      assertEquals(readFromString[Order](r.body), sample.copy(id = 8))
    }

  test(anyStyle("a JSON body is accepted with a charset parameter")):
    withServer(echo) { t =>
      assertEquals(
        t.post("/orders", TestModel.json(sample), "Content-Type" -> "application/json; charset=utf-8").status,
        200
      )
    }

  test(anyStyle("malformed JSON is a 400 naming the position and the reason, without quoting the input")):
    withServer(echo) { t =>
      val r = t.post("/orders", """{"id": 7, "customer": "SECRET-VALUE" "status": "Open"}""", json)
      assertEquals(r.status, 400)
      val p = r.problem
      assertEquals((p.status, p.title), (400, "Bad Request"))
      assertEquals(p.errors.map(e => (e.location, e.rule)), List(("body", "syntax")))
      assert(p.errors.head.message.contains("at byte 37"), p.errors.head.message)
      assert(!r.body.contains("SECRET"), r.body)
    }

  test(anyStyle("a syntax error inside the document is located in the type's names, the input never quoted")):
    withServer(echo) { t =>
      val bad = TestModel.json(sample).replace("\"quantity\":2", "\"quantity\":\"SECRET\"")
      assert(bad.contains("SECRET"), bad)
      val r = t.post("/orders", bad, json)
      assertEquals(r.status, 400)
      val error = r.problem.errors.head
      assertEquals((error.location, error.rule), ("body.lines[0].quantity", "syntax"))
      assert(error.message.startsWith("the body is malformed in lines[0].quantity: "), error.message)
      assert(!r.body.contains("SECRET"), r.body)
    }

  test(anyStyle("a JSON value the type does not accept is reported without echoing it")):
    withServer(echo) { t =>
      val bad = TestModel.json(sample).replace("\"Open\"", "\"EVIL-ENUM-VALUE\"")
      val r = t.post("/orders", bad, json)
      assertEquals(r.status, 400)
      assert(!r.body.contains("EVIL"), r.body)
      assertEquals(r.problem.errors.map(_.rule), List("syntax"))
    }

  test(anyStyle("a circe JSON body round trip, and its failures located and never quoted as jsoniter's are")):
    withServer(Circe.echo) { t =>
      val r = t.post("/circe/orders", Circe.write(sample), json)
      assertEquals(r.status, 200)
      assertEquals(r.header("Content-Type"), Some("application/json"))
      assertEquals(Circe.read(r.body), sample.copy(id = 8))
      val wrong =
        t.post("/circe/orders", Circe.write(sample).replace("\"quantity\":2", "\"quantity\":\"SECRET\""), json)
      assertEquals(wrong.status, 400)
      val error = wrong.problem.errors.head
      assertEquals((error.location, error.rule), ("body.lines[0].quantity", "syntax"))
      assert(!wrong.body.contains("SECRET"), wrong.body)
      val broken = t.post("/circe/orders", """{"id": 7, "customer": "SECRET" "status": {}}""", json)
      assertEquals(broken.status, 400)
      assert(broken.problem.errors.head.message.contains("at byte 31"), broken.body)
      assert(!broken.body.contains("SECRET"), broken.body)
      assertEquals(t.post("/circe/orders", Circe.write(sample), "Content-Type" -> "text/plain").status, 415)
    }

  test(anyStyle("a zio-json body round trip, and its failures located and never quoted")):
    withServer(ZioJson.echo) { t =>
      val r = t.post("/zio/orders", ZioJson.write(sample), json)
      assertEquals(r.status, 200)
      assertEquals(ZioJson.read(r.body), sample.copy(id = 8))
      val wrong =
        t.post("/zio/orders", ZioJson.write(sample).replace("\"quantity\":2", "\"quantity\":\"SECRET\""), json)
      assertEquals(wrong.status, 400)
      assertEquals(
        (wrong.problem.errors.head.location, wrong.problem.errors.head.rule),
        ("body.lines[0].quantity", "syntax")
      )
      assert(!wrong.body.contains("SECRET"), wrong.body)
    }

  test(anyStyle("a missing required field is named")):
    withServer(echo) { t =>
      val r = t.post("/orders", """{"id": 7, "status": {"type": "Open"}, "lines": []}""", json)
      assertEquals(r.status, 400)
      assert(r.problem.errors.head.expected.contains("missing required field \"customer\""), r.body)
    }

  test(anyStyle("null and an empty body are 400, not a 500")):
    withServer(echo) { t =>
      assertEquals(t.post("/orders", "null", json).status, 400)
      assertEquals(t.post("/orders", "", json).status, 400)
    }

  test(anyStyle("a JSON body with another Content-Type, or none, is a 415")):
    withServer(echo) { t =>
      val r = t.post("/orders", TestModel.json(sample), "Content-Type" -> "text/plain")
      assertEquals(r.status, 415)
      assertEquals(
        r.problem.errors.map(e => (e.location, e.rule, e.expected)),
        List(("header.Content-Type", "mediaType", "application/json"))
      )
      assertEquals(t.post("/orders", TestModel.json(sample)).status, 415)
    }

  test(anyStyle("a JSON body over the size limit is a 413 problem")):
    withServerConfig(TestServerConfig(maxBodySize = 1024))(echo) { t =>
      val big = TestModel.json(sample.copy(note = Some("x" * 4096)))
      val r = t.post("/orders", big, json)
      assertEquals(r.status, 413)
      assertEquals(r.problem.status, 413)
    }

  test(anyStyle("validation reports every failure at once, each with its location, rule and expectation")):
    withServer(checked) { t =>
      val bad = order(Line("a", 1, 1), Line("b", 0, 1), Line("c", 2, -1)).copy(customer = "")
      val r = t.post("/checked?limit=0", TestModel.json(bad), json, "X-Tag" -> "toolong")
      assertEquals(r.status, 400)
      val p = r.problem
      assertEquals(
        p.errors.map(e => (e.location, e.rule)),
        List(
          ("query.limit", "minimum"),
          ("header.X-Tag", "maxLength"),
          ("body.customer", "minLength"),
          ("body.lines[1].quantity", "exclusiveMinimum"),
          ("body.lines[2].price", "minimum")
        )
      )
      assertEquals(p.errors.find(_.location == "query.limit").map(_.expected), Some("at least 1"))
      assert(p.detail.contains("lines[1].quantity in the body must be greater than 0"), p.detail)
      assert(!r.body.contains("toolong"), r.body)
    }

  test(anyStyle("a valid request passes validation")):
    withServer(checked) { t =>
      val r = t.post("/checked?limit=5", TestModel.json(sample), json)
      assertEquals((r.status, r.body), (200, "5 2"))
    }

  test(anyStyle("an empty list breaks its minimum size, reported at the list")):
    withServer(checked) { t =>
      val r = t.post("/checked?limit=5", TestModel.json(order()), json)
      assertEquals(r.problem.errors.map(e => (e.location, e.rule)), List(("body.lines", "minItems")))
    }

  test("typed errors as a union: each variant with its own status and JSON body"):
    withServer(lookup) { t =>
      val found = t.get("/orders/1")
      assertEquals(found.status, 200)
      val conflict = t.get("/orders/2")
      assertEquals((conflict.status, conflict.body), (409, """{"reason":"locked"}"""))
      assertEquals(conflict.header("Content-Type"), Some("application/json"))
      val missing = t.get("/orders/3")
      assertEquals((missing.status, missing.body), (404, """{"what":"order 3"}"""))
    }

  test("logic that throws is a 500 problem whose request id is the one logged"):
    val logger = CapturingLogger()
    val throwing =
      endpoint.get.in("boom").out(stringBody).serverLogicSuccess[Future](_ => throw IllegalStateException("secret"))
    val config = TestServerConfig(serverOptions =
      ServerOptions.default.withoutRequestLog.withExceptionHandler(ExceptionHandler.logging(logger))
    )
    withServerConfig(config)(throwing) { t =>
      val r = t.get("/boom")
      assertEquals(r.status, 500)
      val p = r.problem
      val id = p.requestId.getOrElse(fail(s"no request id in $r"))
      assert(id.matches("[0-9a-f]{16}"), id)
      assert(p.detail.contains(id))
      assert(!r.body.contains("secret"))
      val logged = logger.written.filter(_._1 == Level.ERROR).map(_._2)
      assert(logged.exists(_.contains(s"[request $id] GET /boom failed")), logged.toString)
    }

  test(anyStyle("rejections are problems too: 404, and 405 with Allow")):
    withServer(echo) { t =>
      val nf = t.get("/nowhere")
      assertEquals((nf.status, nf.problem.title), (404, "Not Found"))
      val na = t.get("/orders")
      assertEquals((na.status, na.problem.status, na.header("Allow")), (405, 405, Some("POST")))
    }

  test("the problem renderer is replaced in one place"):
    val config = TestServerConfig(serverOptions =
      ServerOptions.default.withoutRequestLog.withProblemRenderer(ProblemRenderer.plainText)
    )
    withServerConfig(config)(checked) { t =>
      val r = t.post("/checked?limit=0", TestModel.json(sample), json)
      assertEquals(r.status, 400)
      assertEquals(r.header("Content-Type"), Some("text/plain; charset=UTF-8"))
      assert(r.body.startsWith("Bad Request: Invalid request:"), r.body)
      assert(r.body.contains("\n  query parameter 'limit' must be at least 1"), r.body)
      assertEquals(t.get("/nowhere").header("Content-Type"), Some("text/plain; charset=UTF-8"))
    }
