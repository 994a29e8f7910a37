package rapier.netty.internal

import io.netty.channel.{ChannelFutureListener, ChannelHandlerContext}

/**
 * Paces a connection's writes, one at a time: once a write succeeds, `next` asks for the following one at once if the
 * connection is writable, else when it becomes so ([[writable]], from `channelWritabilityChanged`); a write that fails
 * calls `failed`. A slow client then slows what is written to it.
 */
private[netty] final class WriteGate(ctx: ChannelHandlerContext, next: () => Unit, failed: () => Unit):
  private var waiting = false

  /** Put on each write's future. */
  val afterWrite: ChannelFutureListener = future =>
    if !future.isSuccess then failed()
    else if ctx.channel.isWritable then next()
    else waiting = true

  /** The connection can take more: the write held back for it is asked for. */
  def writable(): Unit =
    if waiting && ctx.channel.isWritable then
      waiting = false
      next()
