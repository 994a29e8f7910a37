package rapier.json.ziojson

import rapier.*
import rapier.codec.{InputWords, JsonPath}
import rapier.codec.JsonPath.Step
import rapier.model.MediaType
import zio.json.{JsonDecoder, JsonEncoder}

import java.nio.charset.StandardCharsets.UTF_8

/**
 * A JSON body of type `T`, read and written with zio-json's `JsonDecoder` and `JsonEncoder`. The request must say
 * `Content-Type: application/json` (else 415); a document that doesn't decode is a 400 naming the field it failed in
 * (in the type's names, `lines[1].quantity`) and what was expected, never quoting the input. The schema documents `T`
 * and carries its validation rules; when there is no given one, it is derived, as for any other body.
 * {{{
 * final case class Book(title: String, year: Int) derives zio.json.JsonCodec
 *
 * endpoint.post.in("books").in(jsonBody[Book]).out(jsonBody[Book])
 * }}}
 */
inline def jsonBody[T](using encoder: JsonEncoder[T], decoder: JsonDecoder[T]): EndpointIO.Body[Array[Byte], T] =
  jsonBodyWithSchema(encoder, decoder, Schema.givenOrDerived[T])

/** A JSON body with an explicit schema. */
def jsonBodyWithSchema[T](
    encoder: JsonEncoder[T],
    decoder: JsonDecoder[T],
    schema: Schema[T]
): EndpointIO.Body[Array[Byte], T] =
  EndpointIO.Body(RawBodyType.ByteArrayBody, ZioJsonCodec(encoder, decoder, schema))

/** WebSocket messages of JSON: text messages read and written with zio-json. */
inline def jsonMessages[T](using encoder: JsonEncoder[T], decoder: JsonDecoder[T]): WebSocketCodec[T] =
  WebSocketCodec.text(ZioJsonCodec(encoder, decoder, Schema.givenOrDerived[T]))

/**
 * The codec behind [[jsonBody]]: bytes to `T` and back with zio-json, through the document's text. zio-json reports a
 * failure as the path to it and a message: the path is kept as far as the schema names it, and the message without
 * what it quotes of the input (`got 'x'`).
 */
final class ZioJsonCodec[T](encoder: JsonEncoder[T], decoder: JsonDecoder[T], val schema: Schema[T])
    extends Codec[Array[Byte], T]:
  def mediaType: MediaType = MediaType.ApplicationJson

  def rawDecode(raw: Array[Byte]): DecodeResult[T] =
    val text = String(raw, UTF_8)
    decoder.decodeJson(text) match
      case Right(value) => DecodeResult.Value(value)
      case Left(trace) => ZioJsonCodec.malformed(trace, text, schema)

  def encode(value: T): Array[Byte] = encoder.encodeJson(value, None).toString.getBytes(UTF_8)

  override protected def withSchema(s: Schema[T]): Codec[Array[Byte], T] = ZioJsonCodec(encoder, decoder, s)

object ZioJsonCodec:
  /**
   * zio-json's rendered failure, `.lines[1].quantity(expected an Int)`, as `Malformed("expected an Int", path =
   * lines, [1], quantity)`: the steps before the message, then the message with its quoted parts (and any word the
   * document holds) left out.
   */
  def malformed(trace: String, document: String, schema: Schema[?]): DecodeResult.Failure =
    val open = trace.lastIndexOf('(')
    val (path, message) =
      if open < 0 || !trace.endsWith(")") then (trace, trace)
      else (trace.substring(0, open), trace.substring(open + 1, trace.length - 1))
    val reason = InputWords.without(message.replaceAll(" got '.*'$", ""), document)
    DecodeResult.Malformed(
      if reason.isEmpty then "not valid JSON" else reason,
      None,
      JsonPath.named(steps(path), schema)
    )

  /** `.a[1].b{Cons}` as its steps; a sum type's case names no step of the document. */
  private def steps(path: String): List[Step] =
    val out = List.newBuilder[Step]
    var i = 0
    while i < path.length do
      path.charAt(i) match
        case '.' =>
          var j = i + 1
          while j < path.length && path.charAt(j) != '.' && path.charAt(j) != '[' && path.charAt(j) != '{' do j += 1
          out += Step.Key(path.substring(i + 1, j))
          i = j
        case '[' =>
          val j = path.indexOf(']', i)
          if j < 0 then i = path.length
          else
            path.substring(i + 1, j).toIntOption.foreach(n => out += Step.Index(n))
            i = j + 1
        case '{' =>
          val j = path.indexOf('}', i)
          i = if j < 0 then path.length else j + 1
        case _ => i += 1
    out.result()
