package rapier.server.spi

/**
 * A WebSocket connection after its upgrade, as a backend hands it to a [[WebSocketRelay]]. The backend keeps the
 * protocol — frames, fragments joined into messages, pings answered, the close handshake, the UTF-8 of text messages,
 * the size limit and the idle timeout — and the relay sees whole messages. Each method is called on the connection's
 * event loop; none calls back into the relay before it returns.
 */
trait WebSocketChannel:
  /** Writes a whole message; the backend calls the relay's `written` once the connection can take the next. */
  def send(bytes: Array[Byte], text: Boolean): Unit

  /** Asks for the next message: the backend reads until one is whole, then calls the relay's `received`. */
  def requestMessage(): Unit

  /** Starts the close handshake with `code` and `reason` (at most 123 bytes of UTF-8); nothing is sent after it. */
  def close(code: Int, reason: String): Unit
