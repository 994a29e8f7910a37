package rapier.vertx.internal

import io.netty.channel.{Channel, ChannelFutureListener}
import io.vertx.core.Handler
import io.vertx.core.http.HttpConnection
import io.vertx.core.net.impl.ConnectionBase

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/**
 * The open connections of a server, counted against the limit; the ones closing after a refusal; and whether the
 * server is shutting down.
 */
private[vertx] final class Connections(max: Int = Int.MaxValue) extends Handler[HttpConnection]:
  private val open = AtomicInteger()
  private val refused = ConcurrentHashMap.newKeySet[HttpConnection]()

  /**
   * Bytes of request bodies being read, held by the server until their requests are handed to the interpreter (the
   * arrays they are read into). Changed once per body, or per growth of its array, and read only when asked: a striped
   * counter, with no contention between event loops.
   */
  val bodyBytes = java.util.concurrent.atomic.LongAdder()

  /** Set when the server starts shutting down: requests arriving after it are answered 503, and connections close. */
  @volatile var draining: Boolean = false

  /**
   * Counts a new connection in, or closes it when `max` are open already. Vert.x reports an HTTP/1.x connection when
   * its first request arrives, so one over the limit is closed then rather than on accept.
   */
  def handle(connection: HttpConnection): Unit =
    if open.incrementAndGet() > max then
      open.decrementAndGet()
      Connections.close(connection)
    else
      connection.closeHandler(_ => open.decrementAndGet())

  /**
   * Marks a connection as closing after a refusal: nothing more it carries is served. It is forgotten when its
   * channel closes (a listener on the channel rather than Vert.x's single close handler, which a mounted Rapier must
   * leave to the application). A connection whose channel Vert.x doesn't show is not marked: its refusal closes it.
   */
  def refuse(connection: HttpConnection): Unit =
    val channel = Connections.channel(connection)
    if channel != null && refused.add(connection) then
      val forget: ChannelFutureListener = _ => refused.remove(connection)
      channel.nn.closeFuture.addListener(forget)

  def isRefused(connection: HttpConnection): Boolean = !refused.isEmpty && refused.contains(connection)

  /** How many refused connections are still open. */
  def refusedCount: Int = refused.size

private[vertx] object Connections:
  /** The Netty channel under a Vert.x connection, where Vert.x exposes it. */
  def channel(connection: HttpConnection): Channel | Null = connection match
    case c: ConnectionBase => c.channel
    case _ => null

  /** Closes at once, not after the requests Vert.x may still hold for it. */
  def close(connection: HttpConnection): Unit =
    val ch = channel(connection)
    if ch != null then ch.nn.close() else connection.close()
