package rapier

import rapier.model.MediaType

import java.nio.charset.StandardCharsets

/**
 * How the messages of a WebSocket are read and written: each a text or a binary message (one message, its fragments
 * joined), its bytes decoded and encoded by a body codec. A text message's bytes are UTF-8, checked by the backend
 * before they get here, so that a JSON codec reads them as they are, with no `String` between.
 */
final class WebSocketCodec[T](val text: Boolean, val codec: Codec[Array[Byte], T]):
  def decode(bytes: Array[Byte]): DecodeResult[T] = codec.decode(bytes)
  def encode(value: T): Array[Byte] = codec.encode(value)
  def schema: Schema[T] = codec.schema
  def mediaType: MediaType = codec.mediaType

  /** The kind of message, for messages and documentation. */
  def kind: String = if text then "text" else "binary"

object WebSocketCodec:
  /** Text messages, as strings. */
  given string: WebSocketCodec[String] = WebSocketCodec(
    text = true,
    Codec.Mapped(
      Codec.byteArray,
      (b: Array[Byte]) => DecodeResult.Value(new String(b, StandardCharsets.UTF_8)),
      (s: String) => s.getBytes(StandardCharsets.UTF_8),
      Schema.string,
      MediaType.TextPlainUtf8
    )
  )

  /** Binary messages, as their bytes. */
  given bytes: WebSocketCodec[Array[Byte]] = WebSocketCodec(text = false, Codec.byteArray)

  /** Text messages read and written by a codec of their UTF-8 bytes (JSON, for one). */
  def text[T](codec: Codec[Array[Byte], T]): WebSocketCodec[T] = WebSocketCodec(text = true, codec)

  /** Binary messages read and written by a codec of their bytes. */
  def binary[T](codec: Codec[Array[Byte], T]): WebSocketCodec[T] = WebSocketCodec(text = false, codec)
