package rapier.json.jsoniter

import com.github.plokhotnyuk.jsoniter_scala.core.*
import rapier.*
import rapier.model.MediaType

import java.nio.ByteBuffer
import java.util.concurrent.Flow

/** How the values of a JSON stream are laid out in its body. */
enum JsonFraming(val mediaType: MediaType):
  /** One JSON array, `application/json`: `[v, v, …]`. */
  case Array extends JsonFraming(MediaType.ApplicationJson)

  /** Newline-delimited JSON, `application/x-ndjson`: one value per line (any whitespace between values is read). */
  case Lines extends JsonFraming(MediaType("application", "x-ndjson"))

/**
 * A body that is a stream of `T`s in one JSON array, read and written one element at a time with jsoniter-scala: a
 * million-element array is never held in memory, on either side. As an input, the logic subscribes to a
 * `Flow.Publisher[T]` that parses elements only as it requests them (the body is read from the connection no faster);
 * as an output, it returns one, and each element is written as the connection takes it. The request must say
 * `Content-Type: application/json` (else 415). An element that is malformed or breaks its schema's rules fails the
 * subscriber with an [[InvalidStreamException]], and the request is answered 400 unless its response has started.
 * OpenAPI documents it as an array of `T`.
 */
inline def jsonArrayBody[T](using
    json: JsonValueCodec[T]
): EndpointIO.Body[Flow.Publisher[ByteBuffer], Flow.Publisher[T]] =
  jsonStreamBody(json, Schema.givenOrDerived[T], JsonFraming.Array)

/**
 * A body that is a stream of `T`s as newline-delimited JSON (`application/x-ndjson`): like [[jsonArrayBody]], one
 * value per line.
 */
inline def ndjsonBody[T](using
    json: JsonValueCodec[T]
): EndpointIO.Body[Flow.Publisher[ByteBuffer], Flow.Publisher[T]] =
  jsonStreamBody(json, Schema.givenOrDerived[T], JsonFraming.Lines)

/** A stream of JSON values with an explicit element schema and framing. */
def jsonStreamBody[T](
    json: JsonValueCodec[T],
    element: Schema[T],
    framing: JsonFraming,
    maxElementSize: Int = JsonStreamCodec.DefaultMaxElementSize
): EndpointIO.Body[Flow.Publisher[ByteBuffer], Flow.Publisher[T]] =
  EndpointIO.Body(RawBodyType.StreamBody(StreamKind.Publisher), JsonStreamCodec(json, element, framing, maxElementSize))

/**
 * The codec behind [[jsonArrayBody]] and [[ndjsonBody]]: a publisher of body chunks to a publisher of values, and back.
 * Nothing is read or written until the publisher is subscribed to.
 */
final class JsonStreamCodec[T](
    json: JsonValueCodec[T],
    element: Schema[T],
    framing: JsonFraming,
    maxElementSize: Int
) extends Codec[Flow.Publisher[ByteBuffer], Flow.Publisher[T]]:
  val schema: Schema[Flow.Publisher[T]] = Schema(SchemaType.SArray(element))
  def mediaType: MediaType = framing.mediaType

  /** The same stream with its elements described and checked by `e`. */
  def element(e: Schema[T]): JsonStreamCodec[T] = JsonStreamCodec(json, e, framing, maxElementSize)

  def rawDecode(raw: Flow.Publisher[ByteBuffer]): DecodeResult[Flow.Publisher[T]] =
    DecodeResult.Value(JsonValuesPublisher(raw, json, element, framing == JsonFraming.Array, maxElementSize))

  def encode(values: Flow.Publisher[T]): Flow.Publisher[ByteBuffer] =
    JsonBytesPublisher(values, json, framing == JsonFraming.Array)

  /** A schema for the stream is one for its elements: an array of them, whose element schema is taken. */
  override protected def withSchema(s: Schema[Flow.Publisher[T]])
      : Codec[Flow.Publisher[ByteBuffer], Flow.Publisher[T]] =
    s.schemaType match
      case SchemaType.SArray(e) => element(e.asInstanceOf[Schema[T]])
      case other =>
        throw IllegalArgumentException(s"a JSON stream's schema is an array of its elements, not $other")

object JsonStreamCodec:
  /** The largest element accepted by default: 1 MiB. */
  val DefaultMaxElementSize: Int = 1024 * 1024
