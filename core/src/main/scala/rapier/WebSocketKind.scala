package rapier

import java.util.concurrent.Flow

/**
 * The shape of a WebSocket's logic, `P`: what it returns to relay the client's messages to its own. Rapier runs the
 * JDK's, [[WebSocketKind.Publishers]], for logic that returns futures and for direct style; effect modules add their
 * own, each relayed by the backend with no stage of its own between the frames and the logic's stream.
 */
trait WebSocketKind[P]:
  /** The pipe's type, for messages and documentation. */
  def name: String

  /**
   * How a client hands its caller this kind of pipe, given the one it opened over the JDK's `WebSocket` as
   * [[WebSocketKind.Publishers]] do it: from the caller's messages to the server's. None for a kind no client opens.
   */
  def forClient: Option[(Flow.Publisher[Any] => Flow.Publisher[Any]) => P] = None

object WebSocketKind:
  /**
   * A function from the client's messages, as a `Flow.Publisher` that reads a message from the connection only when
   * its subscriber asks for one, to the server's, as the `Flow.Publisher` the function returns: subscribed to once,
   * one message asked for at a time, as the connection takes them. The server's publisher completing closes the
   * WebSocket normally (1000); failing closes it with 1011.
   */
  case object Publishers extends WebSocketKind[Flow.Publisher[Any] => Flow.Publisher[Any]]:
    def name = "Flow.Publisher[In] => Flow.Publisher[Out]"
    override val forClient = Some(identity)

  /** [[Publishers]], typed by its messages. */
  def publishers[In, Out]: WebSocketKind[Flow.Publisher[In] => Flow.Publisher[Out]] =
    Publishers.asInstanceOf[WebSocketKind[Flow.Publisher[In] => Flow.Publisher[Out]]]
