package rapier.json.ziojson

import munit.ScalaCheckSuite
import org.scalacheck.{Arbitrary, Gen, Prop}
import rapier.*
import rapier.json.JsonModel.*
import rapier.model.MediaType
import zio.json.*

object ZioJsonCodecTest:
  given JsonCodec[Kind] = DeriveJsonCodec.gen
  given JsonCodec[Line] = DeriveJsonCodec.gen
  given JsonCodec[Order] = DeriveJsonCodec.gen
  final case class Stock(counts: Map[String, Int]) derives JsonCodec

class ZioJsonCodecTest extends ScalaCheckSuite:
  import ZioJsonCodecTest.{*, given}

  private val body = jsonBody[Order]
  private val codec = body.codec

  private given Arbitrary[Order] = Arbitrary(orders(Gen.alphaNumStr))

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
      positiveQuantities
    ).codec
    assertEquals(checked.decode(checked.encode(negativeSecondLine)), secondLineRefused)

  test("WebSocket messages are JSON text"):
    val messages = jsonMessages[Line]
    val line = Line("a", 1, 2.5, Kind.Book)
    assert(messages.text)
    assertEquals(messages.decode(messages.encode(line)), DecodeResult.Value(line))
