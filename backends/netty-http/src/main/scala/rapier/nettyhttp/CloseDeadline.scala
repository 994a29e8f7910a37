package rapier.nettyhttp

import io.netty.channel.{Channel, ChannelFuture, ChannelFutureListener}
import io.netty.util.concurrent.ScheduledFuture

import java.util.concurrent.TimeUnit

/**
 * Closes a connection at a deadline unless it closed before, for what waits on the client (a lingering refusal, a
 * WebSocket's close handshake). The timer is cancelled once the connection closes: left to fire, it would hold the
 * connection, its pipeline and all they reference until its time, on every connection that closed in time.
 */
object CloseDeadline:
  def after(channel: Channel, millis: Long): Unit =
    val timer = channel.eventLoop.schedule((() => channel.close()): Runnable, millis, TimeUnit.MILLISECONDS)
    channel.closeFuture.addListener(Cancel(timer))

  /** Netty runs it on the connection's loop, where a cancelled timer leaves the loop's queue at once. */
  private final class Cancel(timer: ScheduledFuture[?]) extends ChannelFutureListener:
    def operationComplete(closed: ChannelFuture): Unit = timer.cancel(false)
