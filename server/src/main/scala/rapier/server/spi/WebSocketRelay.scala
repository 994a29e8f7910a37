package rapier.server.spi

import rapier.{DecodeResult, WebSocketCodec}

import java.nio.charset.StandardCharsets

/**
 * The logic's side of a WebSocket, as a backend drives it once the 101 is written: it runs the logic's pipe — a
 * [[rapier.WebSocketKind.Publishers]] pair, or an effect module's own ([[WebSocketRunner]]) — on the backend's
 * [[WebSocketChannel]]. The backend calls each method on the connection's event loop.
 */
trait WebSocketRelay:
  /** The 101 is written: the pipe runs on `channel`, whose methods are called on `loop`. */
  def start(channel: WebSocketChannel, loop: EventLoop): Unit

  /** A whole message from the client, asked for by the channel's `requestMessage`. */
  def received(bytes: Array[Byte], text: Boolean): Unit

  /** The last message sent is written: the connection can take the next. */
  def written(): Unit

  /**
   * The client closed, or left, while the channel still holds messages it sent before: nothing is sent any more, and
   * the server's side may end now; those messages still come as they are asked for, then [[ended]].
   */
  def closing(): Unit = ()

  /**
   * The connection ended — closed by either side, broken, or never upgraded at all (the response abandoned before it
   * was written): the streams on both sides end with it.
   */
  def ended(): Unit

object WebSocketRelay:
  /**
   * A whole message as `codec` reads it; or null once `close` has been called with why it can't be read: 1003 for a
   * text message where binary ones are taken or the reverse, 1007 for one the codec can't read (the reason says why).
   */
  def decode(
      codec: WebSocketCodec[Any],
      bytes: Array[Byte],
      text: Boolean,
      close: (Int, String) => Unit
  ): DecodeResult.Value[Any] | Null =
    if text != codec.text then
      close(1003, s"This WebSocket takes ${codec.kind} messages.")
      null
    else
      codec.decode(bytes) match
        case value: DecodeResult.Value[Any] @unchecked => value
        case failure: DecodeResult.Failure =>
          close(1007, reason(s"The message ${failure.describe}"))
          null

  /** A close reason within the 123 bytes a close frame has room for. */
  def reason(text: String): String =
    val bytes = text.getBytes(StandardCharsets.UTF_8)
    if bytes.length <= 123 then text
    else
      var end = 120
      while end > 0 && (bytes(end) & 0xc0) == 0x80 do end -= 1
      new String(bytes, 0, end, StandardCharsets.UTF_8) + "..."
