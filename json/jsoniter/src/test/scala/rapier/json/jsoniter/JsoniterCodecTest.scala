package rapier.json.jsoniter

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import munit.ScalaCheckSuite
import org.scalacheck.{Arbitrary, Gen, Prop}
import rapier.*
import rapier.model.MediaType

object JsoniterCodecTest:
  enum Kind:
    case Book, Pen
  final case class Line(name: String, quantity: Int, price: Double, kind: Kind)
  final case class Order(id: Long, lines: List[Line], note: Option[String])

  given JsonValueCodec[Order] = JsonCodecMaker.make

class JsoniterCodecTest extends ScalaCheckSuite:
  import JsoniterCodecTest.*

  private val body = jsonBody[Order]
  private val codec = body.codec

  private given Arbitrary[Order] = Arbitrary(
    for
      id <- Arbitrary.arbitrary[Long]
      lines <- Gen.listOf(
        for
          n <- Arbitrary.arbitrary[String]
          q <- Arbitrary.arbitrary[Int]
          p <- Gen.choose(-1e9, 1e9)
          k <- Gen.oneOf(Kind.values.toList)
        yield Line(n, q, p, k)
      )
      note <- Gen.option(Arbitrary.arbitrary[String])
    yield Order(id, lines, note)
  )

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
      case DecodeResult.Malformed(reason, Some(_)) => assert(!reason.contains("SECRET"), reason)
      case other => fail(s"not malformed: $other")
    assertEquals(
      JsoniterCodec.malformed("illegal enum value \"SECRET\", offset: 0x0000001a"),
      DecodeResult.Malformed("illegal enum value …", Some(26))
    )

  test("a missing required field keeps its name, which comes from the type"):
    codec.decode("""{"lines":[]}""".getBytes) match
      case DecodeResult.Malformed(reason, _) => assertEquals(reason, "missing required field \"id\"")
      case other => fail(s"not malformed: $other")

  test("null is not an order"):
    assertEquals(codec.decode("null".getBytes), DecodeResult.Malformed("expected '{'", Some(0)))

  test("decoding checks the schema's rules, nested ones included"):
    val checked = jsonBodyWithSchema(
      summon[JsonValueCodec[Order]],
      Schema.derived[Order].modify(_.lines.each.quantity)(_.validate(Validator.positive))
    ).codec
    val order = Order(1, List(Line("a", 1, 1, Kind.Pen), Line("b", -2, 1, Kind.Book)), None)
    assertEquals(
      checked.decode(writeToArray(order)),
      DecodeResult.InvalidValue(List(ValidationError(
        "exclusiveMinimum",
        "greater than 0",
        List("lines", "[1]", "quantity")
      )))
    )

  test("a given schema is used instead of a derived one"):
    given Schema[Order] = Schema.derived[Order].description("an order")
    assertEquals(jsonBody[Order].codec.schema.description, Some("an order"))
