package rapier.netty.internal

import io.netty.channel.ChannelHandlerContext
import rapier.netty.NettyServerOptions

import java.util.concurrent.TimeUnit

/**
 * The read deadlines of one connection: a request's head must arrive within `headerReadTimeout` of its first bytes, a
 * buffered body within `bodyReadTimeout` of when it was first seen incomplete, and a streamed body's next bytes within
 * `bodyReadTimeout` of a pull that waits for them. Only a head or body that spans reads is timed, so most requests
 * never are; one check is scheduled at a time, at the nearest deadline. What a missed deadline means is the
 * [[ReadDeadlines.Connection]]'s. Touched only by the connection's event loop.
 */
private[netty] final class ReadDeadlines(
    ctx: ChannelHandlerContext,
    options: NettyServerOptions,
    decoder: RequestSource,
    connection: ReadDeadlines.Connection
):
  private val headerNanos = rapier.timeoutNanos(options.headerReadTimeout)
  private val bodyNanos = rapier.timeoutNanos(options.bodyReadTimeout)
  // When the buffered body being received was first seen incomplete (System.nanoTime, 0 for none), and whether a
  // check is scheduled.
  private var bodySince = 0L
  private var armed = false
  private val check: Runnable = () => onDeadline()

  /** Schedules the check of the read deadlines, if any applies and none is scheduled. */
  def watch(): Unit =
    if connection.readsBody && connection.streamedBody == null && bodySince == 0L then bodySince = System.nanoTime()
    if !armed then
      val next = nextDeadline()
      if next != Long.MaxValue then
        armed = true
        ctx.executor.schedule(check, next - System.nanoTime(), TimeUnit.NANOSECONDS)

  /** The buffered body being received is whole, or dropped: it is timed no more. */
  def bodyDone(): Unit = bodySince = 0L

  private def nextDeadline(): Long =
    val head = decoder.headPendingSince
    val headDeadline = if head != 0L && headerNanos > 0 then head + headerNanos else Long.MaxValue
    math.min(headDeadline, bodyDeadline)

  // A buffered body is timed from when it was first seen incomplete; a streamed one only while a pull waits for it.
  private def bodyDeadline: Long =
    val stream = connection.streamedBody
    val since = if stream != null then stream.nn.waitingSince else if connection.readsBody then bodySince else 0L
    if since != 0L && bodyNanos > 0 then since + bodyNanos else Long.MaxValue

  private def onDeadline(): Unit =
    armed = false
    if !connection.isClosing && ctx.channel.isActive then
      val now = System.nanoTime()
      val head = decoder.headPendingSince
      if head != 0L && headerNanos > 0 && now - head >= headerNanos then connection.headTimedOut()
      else if now >= bodyDeadline then connection.bodyTimedOut()
      else if connection.readsBody || head != 0L then watch()

private[netty] object ReadDeadlines:
  /** What the deadlines look at on their connection, and what they tell it. */
  trait Connection:
    /** Nothing more is read: no deadline applies. */
    def isClosing: Boolean

    /** A request's body is being received, buffered or streamed. */
    def readsBody: Boolean

    /** The body being streamed to its reader, if any. */
    def streamedBody: NettyBody | Null

    /** A head did not arrive in time. */
    def headTimedOut(): Unit

    /** A body's bytes did not arrive in time. */
    def bodyTimedOut(): Unit
