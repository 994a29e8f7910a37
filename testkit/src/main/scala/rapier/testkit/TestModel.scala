package rapier.testkit

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import rapier.*

/** The types the test kit's JSON endpoints read and write. */
object TestModel:
  enum Status:
    case Open, Shipped

  final case class Line(sku: String, quantity: Int, price: BigDecimal)
  final case class Order(id: Long, customer: String, status: Status, lines: List[Line], note: Option[String])

  final case class NotFound(what: String)
  final case class Conflict(reason: String)
  final case class Unauthorized(reason: String)
  final case class Forbidden(reason: String)

  given JsonValueCodec[Order] = JsonCodecMaker.make
  given JsonValueCodec[NotFound] = JsonCodecMaker.make
  given JsonValueCodec[Conflict] = JsonCodecMaker.make
  given JsonValueCodec[Unauthorized] = JsonCodecMaker.make
  given JsonValueCodec[Forbidden] = JsonCodecMaker.make
  given JsonValueCodec[Line] = JsonCodecMaker.make
  given listOfLines: JsonValueCodec[List[Line]] = JsonCodecMaker.make

  /** An order's rules: a customer name, at least one line; each line a positive quantity and a price of at least 0. */
  val validatedOrder: Schema[Order] = Schema
    .derived[Order]
    .modify(_.customer)(_.validate(Validator.nonEmptyString))
    .modify(_.lines)(_.validate(Validator.minSize(1)))
    .modify(_.lines.each.quantity)(_.validate(Validator.positive))
    .modify(_.lines.each.price)(_.validate(Validator.nonNegative))

  /** A line's rules: a positive quantity. */
  val validatedLine: Schema[Line] = Schema.derived[Line].modify(_.quantity)(_.validate(Validator.positive))

  def order(lines: Line*): Order = Order(7, "Ada", Status.Open, lines.toList, None)

  def json(o: Order): String = writeToString(o)

/** An RFC 9457 problem as a test reads it back. */
final case class ProblemBody(
    `type`: String,
    title: String,
    status: Int,
    detail: String,
    errors: List[ProblemBody.Error] = Nil,
    requestId: Option[String] = None
):
  def locations: List[String] = errors.map(_.location)

object ProblemBody:
  final case class Error(location: String, rule: String, expected: String, message: String)

  given JsonValueCodec[ProblemBody] = JsonCodecMaker.make

  /** The problem in a response, failing the test if it is not one. */
  def of(r: TestResponse): ProblemBody =
    val contentType = r.header("Content-Type").getOrElse("")
    if contentType != "application/problem+json" then
      throw AssertionError(s"expected an application/problem+json response, got '$contentType': $r")
    readFromArray[ProblemBody](r.bytes)
