package rapier.nettyhttp

import io.netty.channel.ChannelHandlerContext

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

  /** No more checks: the connection is another handler's now. */
  def stop(): Unit = stopped = true
  private var seen = -1
  private var quietChecks = 0

  /** A read or a write happened. */
  def touch(): Unit = activity += 1

  def start(): Unit = schedule()

  private def schedule(): Unit = ctx.executor.schedule(this, timeoutNanos / 2, TimeUnit.NANOSECONDS)

  def run(): Unit =
    if ctx.channel.isActive && !stopped then
      if activity == seen && idle() then
        quietChecks += 1
        if quietChecks >= 2 then expire() else schedule()
      else
        seen = activity
        quietChecks = 0
        schedule()
