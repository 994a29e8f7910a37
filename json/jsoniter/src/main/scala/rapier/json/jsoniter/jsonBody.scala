package rapier.json.jsoniter

import com.github.plokhotnyuk.jsoniter_scala.core.*
import rapier.*
import rapier.codec.JsonPath
import rapier.model.MediaType

/**
 * A JSON body of type `T`, read and written by jsoniter-scala straight from and to the body's bytes: no String on
 * either side. The request must say `Content-Type: application/json` (else 415); a syntax error is a 400 naming the
 * position, the field it is in (in the type's names: `lines[1].quantity`) and what the parser expected, never quoting
 * the input. The schema documents `T` and carries its validation rules; when there is no given one, it is derived
 * (case classes, sealed traits, enums).
 * {{{
 * final case class Book(title: String, year: Int)
 * given JsonValueCodec[Book] = JsonCodecMaker.make
 *
 * endpoint.post.in("books").in(jsonBody[Book]).out(jsonBody[Book])
 * }}}
 */
inline def jsonBody[T](using json: JsonValueCodec[T]): EndpointIO.Body[Array[Byte], T] =
  jsonBodyWithSchema(json, Schema.givenOrDerived[T])

/** A JSON body with an explicit schema. */
def jsonBodyWithSchema[T](json: JsonValueCodec[T], schema: Schema[T]): EndpointIO.Body[Array[Byte], T] =
  EndpointIO.Body(RawBodyType.ByteArrayBody, JsoniterCodec(json, schema))

/**
 * The codec behind [[jsonBody]]: bytes to `T` and back with jsoniter-scala. Parse errors carry the parser's reason
 * and the byte offset; the reader is configured not to dump the input into its messages, and quoted parts of a
 * reason (an unknown enum value, a duplicated key) are dropped, since they come from the input.
 */
final class JsoniterCodec[T](
    json: JsonValueCodec[T],
    val schema: Schema[T],
    readerConfig: ReaderConfig = JsoniterCodec.readerConfig,
    writerConfig: WriterConfig = WriterConfig
) extends Codec[Array[Byte], T]:
  def mediaType: MediaType = MediaType.ApplicationJson

  /**
   * The document read as `T`; once that fails, read again with its integral numbers written plainly (`-12537.0` as
   * `-12537`: JSON Schema's integers), the first failure reported if that fails too.
   */
  def rawDecode(raw: Array[Byte]): DecodeResult[T] =
    try read(raw)
    catch
      case e: JsonReaderException =>
        val whole = WholeNumbersInJson.rewritten(raw, 0, raw.length)
        val again =
          if whole == null then null
          else
            try read(whole.nn)
            catch case _: JsonReaderException => null
        if again == null then JsoniterCodec.malformed(e, raw, 0, raw.length, schema) else again.nn

  private def read(raw: Array[Byte]): DecodeResult[T] =
    readFromArray(raw, readerConfig)(using json) match
      case null => JsoniterCodec.nullValue
      case v => DecodeResult.Value(v)

  def encode(value: T): Array[Byte] = writeToArray(value, writerConfig)(using json)

  override protected def withSchema(s: Schema[T]): Codec[Array[Byte], T] =
    JsoniterCodec(json, s, readerConfig, writerConfig)

object JsoniterCodec:
  /** No hex dump of the input in messages, and no stack traces: a parse error is an expected outcome. */
  val readerConfig: ReaderConfig =
    ReaderConfig.withAppendHexDumpToParseException(false).withThrowReaderExceptionWithStackTrace(false)

  private val Offset = ", offset: 0x"

  /** `null` where the type has no null value of its own (a case class): jsoniter returns null for it. */
  private val nullValue = DecodeResult.Malformed("expected a JSON value, not null", Some(0))

  /**
   * `expected '}' or ',', offset: 0x0000001f` as `Malformed("expected '}' or ','", Some(31))`. A reason naming a
   * field the type requires keeps the name (it comes from the type); any other quoted part came from the input and
   * is replaced by `…`.
   */
  def malformed(message: String | Null): DecodeResult.Failure =
    if message == null then DecodeResult.Malformed("not valid JSON")
    else
      val m = message.nn
      val at = m.indexOf(Offset)
      val reason = if at < 0 then m else m.substring(0, at)
      val position =
        if at < 0 then None
        else
          val digits = m.substring(at + Offset.length).takeWhile(c => Character.digit(c, 16) >= 0)
          if digits.isEmpty then None else Some(java.lang.Long.parseLong(digits, 16))
      val safe = if reason.startsWith("missing required field") then reason else reason.replaceAll("\"[^\"]*\"", "…")
      DecodeResult.Malformed(safe, position)

  /**
   * What `e` says was wrong with the document in `json` from `from` to `to`, read with `schema`: as [[malformed]],
   * its position counted from `from`, with the path to the field it is in (core's `JsonPath`).
   */
  def malformed(
      e: JsonReaderException,
      json: Array[Byte],
      from: Int,
      to: Int,
      schema: Schema[?]
  ): DecodeResult.Failure =
    malformed(e.getMessage) match
      case m @ DecodeResult.Malformed(_, Some(at), _) =>
        m.copy(position = Some(at - from), path = JsonPath.at(json, from, to, at, schema))
      case other => other

/**
 * WebSocket messages of JSON: text messages read and written by jsoniter-scala straight from and to their bytes.
 * {{{
 * endpoint.get.in("orders").out(webSocketBody[Order, Status](using jsonMessages[Order], jsonMessages[Status]))
 * }}}
 */
inline def jsonMessages[T](using json: JsonValueCodec[T]): WebSocketCodec[T] =
  WebSocketCodec.text(JsoniterCodec(json, Schema.givenOrDerived[T]))
