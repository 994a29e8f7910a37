package rapier.server.spi

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
   * The connection ended — closed by either side, broken, or never upgraded at all (the response abandoned before it
   * was written): the streams on both sides end with it.
   */
  def ended(): Unit

object WebSocketRelay:
  /** A close reason within the 123 bytes a close frame has room for. */
  def reason(text: String): String =
    val bytes = text.getBytes(StandardCharsets.UTF_8)
    if bytes.length <= 123 then text
    else
      var end = 120
      while end > 0 && (bytes(end) & 0xc0) == 0x80 do end -= 1
      new String(bytes, 0, end, StandardCharsets.UTF_8) + "..."
