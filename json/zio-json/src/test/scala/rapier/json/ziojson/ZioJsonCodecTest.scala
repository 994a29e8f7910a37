package rapier.json.ziojson

import munit.ScalaCheckSuite
import org.scalacheck.{Arbitrary, Gen, Prop}
import rapier.*
import rapier.model.MediaType
import zio.json.*

object ZioJsonCodecTest:
  enum Kind derives JsonCodec:
    case Book, Pen
  final case class Line(name: String, quantity: Int, price: Double, kind: Kind) derives JsonCodec
  final case class Order(id: Long, lines: List[Line], note: Option[String]) derives JsonCodec
  final case class Stock(counts: Map[String, Int]) derives JsonCodec

class ZioJsonCodecTest extends ScalaCheckSuite:
  import ZioJsonCodecTest.*

  private val body = jsonBody[Order]
  private val codec = body.codec

  private given Arbitrary[Order] = Arbitrary(
    for
      id <- Arbitrary.arbitrary[Long]
      lines <- Gen.listOf(
        for
          n <- Gen.alphaNumStr
          q <- Arbitrary.arbitrary[Int]
          p <- Gen.choose(-1e9, 1e9)
          k <- Gen.oneOf(Kind.values.toList)
        yield Line(n, q, p, k)
      )
      note <- Gen.option(Gen.alphaNumStr)
    yield Order(id, lines, note)
  )

  property("encode then decode is the identity, the bytes zio-json's"):
    Prop.forAll((o: Order) =>
      codec.decode(codec.encode(o)) == DecodeResult.Value(o) && String(codec.encode(o), "UTF-8") == o.toJson
    )

  test("a JSON body is application/json, read as bytes, with a derived schema"):
    assertEquals(codec.mediaType, MediaType.ApplicationJson)
    assertEquals(body.raw, RawBodyType.ByteArrayBody)
    assertEquals(codec.schema.name.map(_.shortName), Some("Order"))

  test("a value of the wrong type names the field in the type's names, and what was expected"):
    assertEquals(
      codec.decode("""{"id":1,"lines":[{"name":"a","quantity":true,"price":1,"kind":{"Pen":{}}}]}""".getBytes),
      DecodeResult.Malformed("expected an Int", None, List("lines", "[0]", "quantity"))
    )

  test("a missing field is named by the path"):
    codec.decode("""{"lines":[]}""".getBytes) match
      case DecodeResult.Malformed(_, None, path) => assertEquals(path, List("id"))
      case other => fail(s"not malformed: $other")

  test("a syntax error never quotes what was sent"):
    codec.decode("""{"id":1,"lines":[] "SECRET":1}""".getBytes) match
      case f @ DecodeResult.Malformed(reason, _, _) =>
        assert(!f.describe.contains("SECRET") && !reason.contains("got"), f.describe)
      case other => fail(s"not malformed: $other")

  test("an enum case the type lacks, and a map's keys, are never named"):
    val wrongCase =
      codec.decode("""{"id":1,"lines":[{"name":"a","quantity":1,"price":1,"kind":{"SECRET":{}}}]}""".getBytes)
    assert(!wrongCase.asInstanceOf[DecodeResult.Failure].describe.contains("SECRET"), wrongCase)
    jsonBody[Stock].codec.decode("""{"counts":{"SECRET-KEY":"x"}}""".getBytes) match
      case f @ DecodeResult.Malformed(_, _, path) =>
        assertEquals(path, List("counts"))
        assert(!f.describe.contains("SECRET"), f.describe)
      case other => fail(s"not malformed: $other")

  test("decoding checks the schema's rules"):
    val checked = jsonBodyWithSchema(
      JsonEncoder[Order],
      JsonDecoder[Order],
      Schema.derived[Order].modify(_.lines.each.quantity)(_.validate(Validator.positive))
    ).codec
    val order = Order(1, List(Line("a", 1, 1, Kind.Pen), Line("b", -2, 1, Kind.Book)), None)
    assertEquals(
      checked.decode(checked.encode(order)),
      DecodeResult.InvalidValue(List(ValidationError(
        "exclusiveMinimum",
        "greater than 0",
        List("lines", "[1]", "quantity")
      )))
    )

  test("WebSocket messages are JSON text"):
    val messages = jsonMessages[Line]
    val line = Line("a", 1, 2.5, Kind.Book)
    assert(messages.text)
    assertEquals(messages.decode(messages.encode(line)), DecodeResult.Value(line))
