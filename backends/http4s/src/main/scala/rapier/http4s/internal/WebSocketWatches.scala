package rapier.http4s.internal

import com.comcast.ip4s.GenSocketAddress
import rapier.server.spi.WebSocketWatch

import java.util.concurrent.ConcurrentHashMap

/**
 * The rules of the WebSockets a server is upgrading, by client address: the interpreter names them as it answers a
 * 101, and the connection's [[GuardedSocket]] takes them as that answer is written (or dropped with any other, or
 * with the connection), to watch what the client sends from then on. Ember's request carries no handle on its
 * connection; its client's address names one.
 */
private[http4s] final class WebSocketWatches:
  private val expected = ConcurrentHashMap[GenSocketAddress, WebSocketWatch]()
  // The interpreter's open WebSockets, once it is made
  @volatile private var open: Http4sWebSocket.Open | Null = null

  /** The interpreter whose WebSockets these are keeps them in `sockets`. */
  def serve(sockets: Http4sWebSocket.Open): Unit = open = sockets

  def expect(client: GenSocketAddress, watch: WebSocketWatch, socket: Http4sWebSocket.Stoppable): Unit =
    socket.watch = watch
    expected.put(client, watch)

  def take(client: GenSocketAddress): WebSocketWatch | Null = expected.remove(client)

  /**
   * Tells the WebSocket `watch` is for that its client broke a rule. Found among the open ones, so that a connection
   * holds no WebSocket of its own past the WebSocket's end.
   */
  def broken(watch: WebSocketWatch, code: Int, reason: String): Unit =
    val sockets = open
    if sockets != null then sockets.broken(watch, code, reason)
