package rapier.json.jsoniter

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import munit.ScalaCheckSuite
import org.scalacheck.{Arbitrary, Prop}
import rapier.*
import rapier.json.JsonModel.*
import rapier.model.MediaType

object JsoniterCodecTest:
  given JsonValueCodec[Order] = JsonCodecMaker.make

class JsoniterCodecTest extends ScalaCheckSuite:
  import JsoniterCodecTest.given

  private val body = jsonBody[Order]
  private val codec = body.codec

  private given Arbitrary[Order] = Arbitrary(orders(Arbitrary.arbitrary[String]))

  property("encode then decode is the identity"):
    Prop.forAll((o: Order) => codec.decode(codec.encode(o)) == DecodeResult.Value(o))

  property("the bytes are exactly jsoniter's"):
    Prop.forAll((o: Order) => codec.encode(o).sameElements(writeToArray(o)))

  test("a JSON body is application/json, read as bytes, with a derived schema"):
    assertEquals(codec.mediaType, MediaType.ApplicationJson)
    assertEquals(body.raw, RawBodyType.ByteArrayBody)
    assertEquals(codec.schema.name.map(_.shortName), Some("Order"))

  test("a syntax error says what was expected, and where, in bytes"):
    assertEquals(
      codec.decode("""{"id":1,"lines":[] "note":null}""".getBytes),
      DecodeResult.Malformed("expected '}' or ','", Some(19))
    )

  test("quoted parts of a reason came from the input and are dropped"):
    codec.decode("""{"id":1,"lines":[{"name":"a","quantity":1,"price":1,"kind":{"type":"SECRET"}}]}""".getBytes) match
      case DecodeResult.Malformed(reason, Some(_), path) =>
        assert(!reason.contains("SECRET"), reason)
        assertEquals(path.take(3), List("lines", "[0]", "kind"))
      case other => fail(s"not malformed: $other")
    assertEquals(
      JsoniterCodec.malformed("illegal enum value \"SECRET\", offset: 0x0000001a"),
      DecodeResult.Malformed("illegal enum value …", Some(26))
    )

  test("a missing required field keeps its name, which comes from the type"):
    codec.decode("""{"lines":[]}""".getBytes) match
      case DecodeResult.Malformed(reason, _, path) =>
        assertEquals(reason, "missing required field \"id\"")
        assertEquals(path, Nil)
      case other => fail(s"not malformed: $other")

  /** The path of the failure `json` makes, as `decode` reports it. */
  private def pathOf(json: String): List[String] = codec.decode(json.getBytes("UTF-8")) match
    case DecodeResult.Malformed(_, _, path) => path
    case other => fail(s"not malformed: $other")

  test("a syntax error names the field it is in, in the type's own names"):
    assertEquals(pathOf("""{"id":"1","lines":[]}"""), List("id"))
    assertEquals(
      pathOf("""{"id":1,"lines":[{"name":"a","quantity":"2","price":1,"kind":{"type":"Pen"}}]}"""),
      List("lines", "[0]", "quantity")
    )
    val second = """{"id":1,"lines":[{"name":"a","quantity":1,"price":1,"kind":{"type":"Pen"}},
                   | {"name":"b", "quantity" : 1, "price": tru, "kind":{"type":"Pen"}}]}""".stripMargin
    assertEquals(pathOf(second), List("lines", "[1]", "price"))
    assertEquals(
      pathOf("""{"id":1,"lines":[{"name":"a","quantity":1,"price":1,"kind":{"type":"Pen"}}, 7]}"""),
      List("lines", "[1]")
    )
    assertEquals(pathOf("""{"id":1,"note":12}"""), List("note"))

  test("a failure at the end of a value is the enclosing value's, not the last field's"):
    codec.decode("""{"id":1,"lines":[{"name":"a","quantity":1}]}""".getBytes) match
      case DecodeResult.Malformed(reason, _, path) =>
        assert(reason.startsWith("missing required field"), reason)
        assertEquals(path, List("lines", "[0]"))
      case other => fail(s"not malformed: $other")
    assertEquals(pathOf("""{"lines":[],"note":null}"""), Nil)
    assertEquals(pathOf("""{"id":1,"lines":[] "note":null}"""), Nil)

  test("a key the type doesn't have is never quoted: the path ends where the schema can't follow"):
    val r = codec.decode("""{"id":1,"SECRET-KEY":{"a":[1,}],"lines":[]}""".getBytes)
    assertEquals(pathOf("""{"id":1,"SECRET-KEY":{"a":[1,}],"lines":[]}"""), Nil)
    assert(!r.asInstanceOf[DecodeResult.Failure].describe.contains("SECRET"), r)

  test("a document nested deeper than a path names is scanned without keeping each level"):
    val deep = "[" * 1000 + "1,}" + "]" * 999
    assertEquals(pathOf(s"""{"id":1,"lines":[],"note":"n","unknown":$deep}"""), Nil)
    assertEquals(pathOf(s"""{"id":1,"lines":$deep}"""), List("lines", "[0]"))

  test("keys are read with their escapes, as the decoder reads them"):
    assertEquals(pathOf("""{"id":1,"li\u006ees":[{"name":1}]}"""), List("lines", "[0]", "name"))
    assertEquals(
      pathOf("""{"id":1,"note":"a\"b", "lines":[{"name":"x\\","quantity":"q"}]}"""),
      List("lines", "[0]", "quantity")
    )

  test("the message names the field"):
    codec.decode("""{"id":true,"lines":[]}""".getBytes) match
      case f: DecodeResult.Failure => assert(f.describe.startsWith("is malformed in id: "), f.describe)
      case other => fail(s"not malformed: $other")

  test("an integer written with a zero fraction or an exponent is read as JSON Schema reads it; others still fail"):
    val whole = """{"id":7.0,"lines":[{"name":"1.0","quantity":-2e1,"price":3.0,"kind":{"type":"Pen"}}],"note":"5.0"}"""
    assertEquals(
      codec.decode(whole.getBytes),
      DecodeResult.Value(Order(7, List(Line("1.0", -20, 3.0, Kind.Pen)), Some("5.0")))
    )
    val fraction = """{"id":7.0,"lines":[{"name":"a","quantity":2.5,"price":1,"kind":{"type":"Pen"}}]}"""
    codec.decode(fraction.getBytes) match
      case DecodeResult.Malformed(_, Some(at), path) =>
        assertEquals(at, 7L) // the first failure, in the document as sent
        assertEquals(path, List("id"))
      case other => fail(s"not malformed: $other")

  test("null is not an order"):
    assertEquals(codec.decode("null".getBytes), DecodeResult.Malformed("expected '{'", Some(0)))

  test("decoding checks the schema's rules, nested ones included"):
    val checked = jsonBodyWithSchema(
      summon[JsonValueCodec[Order]],
      positiveQuantities
    ).codec
    assertEquals(checked.decode(writeToArray(negativeSecondLine)), secondLineRefused)

  test("a given schema is used instead of a derived one"):
    given Schema[Order] = Schema.derived[Order].description("an order")
    assertEquals(jsonBody[Order].codec.schema.description, Some("an order"))
