package rapier.json.circe

import io.circe.{CursorOp, Decoder, DecodingFailure, Encoder, Json, ParsingFailure, Printer}
import io.circe.jawn.JawnParser
import org.typelevel.jawn.{IncompleteParseException, ParseException}
import rapier.*
import rapier.codec.{InputWords, JsonPath}
import rapier.codec.JsonPath.Step
import rapier.model.MediaType

import java.nio.charset.StandardCharsets.UTF_8

/**
 * A JSON body of type `T`, read and written with circe's `Decoder` and `Encoder`: parsed from the body's bytes by
 * jawn, with no String between. The request must say `Content-Type: application/json` (else 415); a document that
 * doesn't parse or doesn't decode is a 400 naming where (the byte offset of a syntax error, the field in the type's
 * names, `lines[1].quantity`) and what was expected, never quoting the input. The schema documents `T` and carries
 * its validation rules; when there is no given one, it is derived (case classes, sealed traits, enums), as for any
 * other body.
 * {{{
 * final case class Book(title: String, year: Int) derives io.circe.Codec.AsObject
 *
 * endpoint.post.in("books").in(jsonBody[Book]).out(jsonBody[Book])
 * }}}
 */
inline def jsonBody[T](using encoder: Encoder[T], decoder: Decoder[T]): EndpointIO.Body[Array[Byte], T] =
  jsonBodyWithSchema(encoder, decoder, Schema.givenOrDerived[T])

/** A JSON body with an explicit schema. */
def jsonBodyWithSchema[T](
    encoder: Encoder[T],
    decoder: Decoder[T],
    schema: Schema[T]
): EndpointIO.Body[Array[Byte], T] =
  EndpointIO.Body(RawBodyType.ByteArrayBody, CirceCodec(encoder, decoder, schema))

/**
 * WebSocket messages of JSON: text messages read and written with circe.
 * {{{
 * endpoint.get.in("orders").out(webSocketBody[Order, Status](using jsonMessages[Order], jsonMessages[Status]))
 * }}}
 */
inline def jsonMessages[T](using encoder: Encoder[T], decoder: Decoder[T]): WebSocketCodec[T] =
  WebSocketCodec.text(CirceCodec(encoder, decoder, Schema.givenOrDerived[T]))

/**
 * The codec behind [[jsonBody]]: bytes to `T` through circe's `Json` and back, printed by `printer` (compact by
 * default). A failure's reason is written from what circe says went wrong, never from its message as such: circe's
 * messages quote the input (`got 'abc…'`, `Got value '…' with wrong type`).
 */
final class CirceCodec[T](
    encoder: Encoder[T],
    decoder: Decoder[T],
    val schema: Schema[T],
    printer: Printer = Printer.noSpaces
) extends Codec[Array[Byte], T]:
  def mediaType: MediaType = MediaType.ApplicationJson

  def rawDecode(raw: Array[Byte]): DecodeResult[T] =
    CirceCodec.parser.parseByteArray(raw) match
      case Left(failure) => CirceCodec.unparsed(failure, raw, schema)
      case Right(json) =>
        decoder.decodeJson(json) match
          case Right(value) => DecodeResult.Value(value)
          case Left(failure) => CirceCodec.undecoded(failure, json, raw, schema)

  def encode(value: T): Array[Byte] = printer.print(encoder(value)).getBytes(UTF_8)

  override protected def withSchema(s: Schema[T]): Codec[Array[Byte], T] = CirceCodec(encoder, decoder, s, printer)

object CirceCodec:
  /** Duplicate keys are allowed, the last one winning, as circe's own parser does. */
  private val parser = JawnParser(allowDuplicateKeys = true)

  /**
   * A document that didn't parse: jawn's `expected } or , got '…' (line 1, column 20)` as
   * `Malformed("expected } or ,", Some(19), path)`, what it got (which is the input) left out.
   */
  def unparsed(failure: ParsingFailure, json: Array[Byte], schema: Schema[?]): DecodeResult.Failure =
    failure.underlying match
      case e: ParseException =>
        val got = e.msg.indexOf(" got ")
        val reason = if got < 0 then e.msg else e.msg.substring(0, got)
        DecodeResult.Malformed(reason, Some(e.index.toLong), JsonPath.at(json, 0, json.length, e.index.toLong, schema))
      case _: IncompleteParseException =>
        DecodeResult.Malformed("the document ends too early", Some(json.length.toLong))
      case _ => DecodeResult.Malformed("not valid JSON")

  /**
   * A document that parsed (`json`, from `raw`) but isn't a `T`: where, in the type's names, and what was expected
   * there. circe's decoders of numbers fail with the type's name alone (`Long`): what was found is added.
   */
  def undecoded(failure: DecodingFailure, json: Json, raw: Array[Byte], schema: Schema[?]): DecodeResult.Failure =
    val path = steps(failure.history)
    val reason = failure.reason match
      case DecodingFailure.Reason.MissingField => "missing required field"
      case DecodingFailure.Reason.WrongTypeExpectation(expected, value) => s"expected $expected, got ${kindOf(value)}"
      case DecodingFailure.Reason.CustomReason(name) if TypeName.matches(name) =>
        s"expected $name${valueAt(json, path).fold("")(v => s", got ${kindOf(v)}")}"
      case DecodingFailure.Reason.CustomReason(message) => unquoted(message, raw)
    DecodeResult.Malformed(reason, None, JsonPath.named(path, schema))

  private val TypeName = "[A-Z][A-Za-z0-9]*".r

  private def valueAt(json: Json, path: List[Step]): Option[Json] = path match
    case Nil => Some(json)
    case Step.Key(k) :: rest => json.asObject.flatMap(_(k)).flatMap(valueAt(_, rest))
    case Step.Index(i) :: rest => json.asArray.flatMap(_.lift(i)).flatMap(valueAt(_, rest))

  private def kindOf(value: Json): String =
    value.fold("null", _ => "a boolean", _ => "a number", _ => "a string", _ => "an array", _ => "an object")

  /** A decoder's own message, kept but for what may have come from the input (core's `InputWords`). */
  def unquoted(message: String, json: Array[Byte]): String = InputWords.without(message, String(json, UTF_8))

  /** A failure's cursor history, most recent first, as the steps from the top of the document to where it failed. */
  private def steps(history: List[CursorOp]): List[Step] =
    history.foldRight(List.empty[Step]) { (op, reversed) =>
      (op, reversed) match
        case (CursorOp.DownField(k), path) => Step.Key(k) :: path
        case (CursorOp.Field(k), Step.Key(_) :: up) => Step.Key(k) :: up
        case (CursorOp.DownArray, path) => Step.Index(0) :: path
        case (CursorOp.DownN(n), path) => Step.Index(n) :: path
        case (CursorOp.MoveRight, Step.Index(i) :: up) => Step.Index(i + 1) :: up
        case (CursorOp.MoveLeft, Step.Index(i) :: up) => Step.Index(i - 1) :: up
        case (CursorOp.MoveUp | CursorOp.DeleteGoParent, _ :: up) => up
        case (_, path) => path
    }.reverse
