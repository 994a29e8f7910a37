package rapier.json

import org.scalacheck.{Arbitrary, Gen}
import rapier.*

/** The model the JSON modules' tests read and write: each module's test gives it its library's codecs. */
object JsonModel:
  enum Kind:
    case Book, Pen
  final case class Line(name: String, quantity: Int, price: Double, kind: Kind)
  final case class Order(id: Long, lines: List[Line], note: Option[String])

  /** Orders of any id and lines, their names and notes drawn from `strings`. */
  def orders(strings: Gen[String]): Gen[Order] =
    for
      id <- Arbitrary.arbitrary[Long]
      lines <- Gen.listOf(
        for
          n <- strings
          q <- Arbitrary.arbitrary[Int]
          p <- Gen.choose(-1e9, 1e9)
          k <- Gen.oneOf(Kind.values.toList)
        yield Line(n, q, p, k)
      )
      note <- Gen.option(strings)
    yield Order(id, lines, note)

  /** A schema with a rule on a nested field: each line's quantity positive. */
  val positiveQuantities: Schema[Order] =
    Schema.derived[Order].modify(_.lines.each.quantity)(_.validate(Validator.positive))

  /** An order whose second line breaks [[positiveQuantities]], and what decoding it then gives. */
  val negativeSecondLine: Order = Order(1, List(Line("a", 1, 1, Kind.Pen), Line("b", -2, 1, Kind.Book)), None)
  val secondLineRefused: DecodeResult[Order] =
    DecodeResult.InvalidValue(List(ValidationError(
      "exclusiveMinimum",
      "greater than 0",
      List("lines", "[1]", "quantity")
    )))
