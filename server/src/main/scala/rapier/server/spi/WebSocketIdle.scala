package rapier.server.spi

import scala.concurrent.duration.Duration

/**
 * A WebSocket's idle clock, the same on every backend, each with a timer of its own: [[touch]] at each frame either way;
 * when the timer fires, [[left]] says how much longer the connection may stay quiet. None left, it closes with
 * [[WebSocketIdle.Code]] and [[WebSocketIdle.Idle]]; else the timer is set again for what is left. One timer per
 * connection, never one per frame.
 *
 * @param timeout
 *   the endpoint's idle timeout; `Duration.Inf` for none ([[enabled]] is then false)
 */
final class WebSocketIdle(timeout: Duration):
  /** The timeout in nanoseconds, 0 for none: the first timer's delay. */
  val nanos: Long = rapier.timeoutNanos(timeout)
  // Read by a timer on another thread on some backends
  @volatile private var lastActive = System.nanoTime()

  def enabled: Boolean = nanos > 0

  /** A frame was read or written. */
  def touch(): Unit = lastActive = System.nanoTime()

  /** Nanoseconds until the connection counts as idle: 0 or less when it does. */
  def left: Long = lastActive + nanos - System.nanoTime()

object WebSocketIdle:
  /** The close code of a server's own going away (RFC 6455 §7.4.1): idle, or stopping. */
  val Code = 1001

  /** The reason of the close of an idle connection. */
  val Idle = "The connection was idle too long."

  /** The reason of the close a stopping server sends every WebSocket. */
  val GoingAway = "The server is shutting down."
