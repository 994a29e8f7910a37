package rapier.nettyhttp

import io.netty.channel.Channel
import io.netty.channel.socket.DuplexChannel
import rapier.server.spi.Refusals

/**
 * Closes a connection after a refusal without losing the answer: a client still sending (a body over the limit, a
 * request after a malformed one) would otherwise have the connection reset under it, and with it the response it has
 * not read. The output is shut down at once (the client reads the answer, then the end of the stream), what still
 * arrives is read and dropped, and the connection closes when the client closes it, or after
 * `Refusals.LingerMillis` at most. Rapier's Netty backend and its Vert.x one close refused connections with it.
 */
object Linger:
  /**
   * Lingers on `channel`, then closes it: `drop` starts reading and dropping what arrives, the backend's way. False,
   * having done nothing, when `channel` is not an open duplex channel: the caller closes it at once.
   */
  def thenClose(channel: Channel | Null, drop: () => Unit): Boolean = channel match
    case duplex: DuplexChannel if duplex.isActive =>
      duplex.shutdownOutput()
      drop()
      CloseDeadline.after(duplex, Refusals.LingerMillis)
      true
    case _ => false
