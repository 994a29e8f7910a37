package rapier.server.spi

import rapier.EndpointOutput
import rapier.model.HeaderNames

/**
 * The answer that upgrades a request to a WebSocket (on a [[rapier.server.ServerResponse]] of status 101, with its
 * handshake headers): the endpoint's WebSocket output and the [[WebSocketRelay]] that runs the logic's pipe, which a
 * backend starts once the 101 is written.
 */
final class WebSocketUpgrade(val output: EndpointOutput.WebSocketBody[?, ?, ?], val relay: WebSocketRelay):
  /** The 101 won't be written (its client is gone): the pipe ends without having run. */
  def abandon(): Unit = relay.ended()

object WebSocketUpgrade:
  /**
   * The 101's headers a server's own handshake writes (`Upgrade`, `Connection`, `Sec-WebSocket-Accept`): a backend
   * whose server writes the 101 passes it the response's other headers.
   */
  def isHandshakeHeader(name: String): Boolean =
    name.equalsIgnoreCase(HeaderNames.Upgrade) || name.equalsIgnoreCase(HeaderNames.Connection) ||
      name.equalsIgnoreCase("Sec-WebSocket-Accept")
