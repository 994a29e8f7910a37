package rapier.json.circe

import io.circe.{Codec as CirceCodecOf, Decoder, Encoder, Printer}
import io.circe.derivation.{Configuration, ConfiguredEnumCodec}
import io.circe.syntax.*
import munit.ScalaCheckSuite
import org.scalacheck.{Arbitrary, Prop}
import rapier.*
import rapier.json.JsonModel.*
import rapier.model.MediaType

object CirceCodecTest:
  given Configuration = Configuration.default

  given ConfiguredEnumCodec[Kind] = ConfiguredEnumCodec.derived
  given CirceCodecOf.AsObject[Line] = CirceCodecOf.AsObject.derived
  given CirceCodecOf.AsObject[Order] = CirceCodecOf.AsObject.derived

class CirceCodecTest extends ScalaCheckSuite:
  import CirceCodecTest.given

  private val body = jsonBody[Order]
  private val codec = body.codec

  private given Arbitrary[Order] = Arbitrary(orders(Arbitrary.arbitrary[String]))

  property("encode then decode is the identity"):
    Prop.forAll((o: Order) => codec.decode(codec.encode(o)) == DecodeResult.Value(o))

  property("the bytes are circe's compact printing"):
    Prop.forAll((o: Order) => String(codec.encode(o), "UTF-8") == Printer.noSpaces.print(o.asJson))

  test("a JSON body is application/json, read as bytes, with a derived schema"):
    assertEquals(codec.mediaType, MediaType.ApplicationJson)
    assertEquals(body.raw, RawBodyType.ByteArrayBody)
    assertEquals(codec.schema.name.map(_.shortName), Some("Order"))

  test("a syntax error says what was expected, and where, in bytes, without what was there"):
    assertEquals(
      codec.decode("""{"id":1,"lines":[] "SECRET":null}""".getBytes),
      DecodeResult.Malformed("expected } or ,", Some(19))
    )

  test("a syntax error inside a value names the field it is in"):
    val json = """{"id":1,"lines":[{"name":"a","quantity":1,"price":tru,"kind":"Pen"}]}"""
    codec.decode(json.getBytes) match
      case DecodeResult.Malformed(reason, Some(at), path) =>
        assertEquals(reason, "expected true")
        assertEquals(at, json.indexOf("tru").toLong)
        assertEquals(path, List("lines", "[0]", "price"))
      case other => fail(s"not malformed: $other")

  test("a document cut short says so, at its end"):
    assertEquals(
      codec.decode("""{"id":1,"lines":[""".getBytes),
      DecodeResult.Malformed("the document ends too early", Some(17))
    )

  test("a value of the wrong type names the field and both types, not the value"):
    assertEquals(
      codec.decode("""{"id":"SECRET","lines":[]}""".getBytes),
      DecodeResult.Malformed("expected Long, got a string", None, List("id"))
    )
    assertEquals(
      codec.decode("""{"id":1,"lines":[{"name":"a","quantity":1,"price":1,"kind":"Pen"}, 7]}""".getBytes),
      DecodeResult.Malformed("expected object, got a number", None, List("lines", "[1]"))
    )
    assertEquals(
      codec.decode("""{"id":1,"lines":[{"name":"a","quantity":true,"price":1,"kind":"Pen"}]}""".getBytes),
      DecodeResult.Malformed("expected Int, got a boolean", None, List("lines", "[0]", "quantity"))
    )

  test("a missing required field is named by the path"):
    assertEquals(
      codec.decode("""{"lines":[]}""".getBytes),
      DecodeResult.Malformed("missing required field", None, List("id"))
    )

  test("a decoder's message keeps its words, not the input's"):
    codec.decode("""{"id":1,"lines":[{"name":"a","quantity":1,"price":1,"kind":"SECRET"}]}""".getBytes) match
      case f @ DecodeResult.Malformed(reason, None, path) =>
        assert(!f.describe.contains("SECRET"), f.describe)
        assert(reason.startsWith("enum Kind does not contain case"), reason)
        assertEquals(path, List("lines", "[0]", "kind"))
      case other => fail(s"not malformed: $other")
    assertEquals(
      CirceCodec.unquoted("no 'SECRET' nor \"other\" nor case here", """{"k":"case"}""".getBytes),
      "no … nor … nor … here"
    )
    assertEquals(CirceCodec.unquoted("must be positive", """{"k":"positively"}""".getBytes), "must be positive")

  test("a map's keys come from the input: the path stops before them"):
    final case class Stock(counts: Map[String, Int]) derives CirceCodecOf.AsObject
    val stock = jsonBody[Stock].codec
    stock.decode("""{"counts":{"SECRET-KEY":"x"}}""".getBytes) match
      case f @ DecodeResult.Malformed(_, _, path) =>
        assertEquals(path, List("counts"))
        assert(!f.describe.contains("SECRET"), f.describe)
      case other => fail(s"not malformed: $other")

  test("an integer written with a zero fraction is read as JSON Schema reads it"):
    assertEquals(
      codec.decode("""{"id":7.0,"lines":[{"name":"a","quantity":-2e1,"price":3,"kind":"Pen"}]}""".getBytes),
      DecodeResult.Value(Order(7, List(Line("a", -20, 3, Kind.Pen)), None))
    )

  test("null is not an order"):
    assertEquals(codec.decode("null".getBytes), DecodeResult.Malformed("expected object, got null"))

  test("a document nested a hundred thousand deep fails without a stack overflow"):
    val deep = "[" * 100000 + "]" * 100000
    assertEquals(
      codec.decode(s"""{"id":1,"lines":[],"note":$deep}""".getBytes),
      DecodeResult.Malformed("expected string, got an array", None, List("note"))
    )

  test("decoding checks the schema's rules, nested ones included"):
    val checked = jsonBodyWithSchema(
      Encoder[Order],
      Decoder[Order],
      positiveQuantities
    ).codec
    assertEquals(checked.decode(checked.encode(negativeSecondLine)), secondLineRefused)

  test("a given schema is used instead of a derived one"):
    given Schema[Order] = Schema.derived[Order].description("an order")
    assertEquals(jsonBody[Order].codec.schema.description, Some("an order"))

  test("WebSocket messages are JSON text"):
    val messages = jsonMessages[Line]
    val line = Line("a", 1, 2.5, Kind.Book)
    assert(messages.text)
    assertEquals(messages.decode(messages.encode(line)), DecodeResult.Value(line))
