package rapier.nettyhttp

import io.netty.channel.{ChannelFuture, ChannelFutureListener, ChannelHandlerContext}
import io.netty.util.concurrent.ScheduledFuture

import java.util.concurrent.TimeUnit

/**
 * Closes a connection that has been idle — nothing read or written, no request in progress — for the idle timeout,
 * without reading the clock per request: the handler counts its reads and writes ([[touch]]), and a check every half
 * timeout closes the connection once two checks in a row have seen no activity while it had no work. A connection
 * idle for the timeout closes within one and a half timeouts.
 *
 * Netty's `IdleStateHandler` reads the clock at the end of every read and puts a listener on every write's promise:
 * measured with `NettyPipelineBenchmark`, about 100 ns per request, 6% of what Netty's pipeline and Rapier spend on a
 * GET. This costs an increment. Rapier's Netty backend and its own Vert.x server both time idle connections with it.
 *
 * @param idle
 *   whether the connection has no request in progress (read or being answered)
 * @param expire
 *   ends the idle connection: closes it (HTTP), or starts its close handshake (a WebSocket)
 */
final class IdleWatch(
    ctx: ChannelHandlerContext,
    timeoutNanos: Long,
    idle: () => Boolean,
    expire: () => Unit
) extends Runnable:
  private var activity = 0
  private var stopped = false
  private var seen = -1
  private var quietChecks = 0
  // The next check, while one is scheduled
  private var next: ScheduledFuture[?] | Null = null

  /**
   * No more checks: the connection is another handler's now, or closed. The next check is cancelled: left scheduled,
   * it would hold the connection, its pipeline and all they reference until its time, up to half the timeout.
   */
  def stop(): Unit =
    stopped = true
    val n = next
    if n != null then
      n.nn.cancel(false)
      next = null

  /** A read or a write happened. */
  def touch(): Unit = activity += 1

  def start(): Unit =
    ctx.channel.closeFuture.addListener(StopOnClose(this))
    schedule()

  private def schedule(): Unit = next = ctx.executor.schedule(this, timeoutNanos / 2, TimeUnit.NANOSECONDS)

  def run(): Unit =
    next = null
    if ctx.channel.isActive && !stopped then
      if activity == seen && idle() then
        quietChecks += 1
        if quietChecks >= 2 then expire() else schedule()
      else
        seen = activity
        quietChecks = 0
        schedule()

/** Stops a watch once its connection closes (Netty runs the listener on the connection's loop). */
private final class StopOnClose(watch: IdleWatch) extends ChannelFutureListener:
  def operationComplete(closed: ChannelFuture): Unit = watch.stop()
