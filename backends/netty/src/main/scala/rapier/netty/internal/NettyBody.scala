package rapier.netty.internal

import io.netty.buffer.ByteBuf
import rapier.server.spi.{BodyBudget, ConnectionBody, EventLoop}

import java.nio.ByteBuffer

/**
 * A request body streamed to an endpoint that reads it as it arrives: the decoder's chunks, retained as they come and
 * lent to the reader one pull at a time. The connection's auto-read is what starts and stops reading.
 */
private[netty] final class NettyBody(
    loop: EventLoop,
    declaredLength: Long,
    limit: Long,
    budget: BodyBudget,
    autoRead: Boolean => Unit,
    wait: () => Unit,
    expectsContinue: () => Unit
) extends ConnectionBody[ByteBuf](loop, declaredLength, limit, budget):
  protected def size(chunk: ByteBuf): Int = chunk.readableBytes
  protected def view(chunk: ByteBuf): ByteBuffer = chunk.nioBuffer()
  protected def release(chunk: ByteBuf): Unit = chunk.release()
  protected def read(on: Boolean): Unit = autoRead(on)
  override protected def awaiting(): Unit = wait()
  override protected def firstPull(): Unit = expectsContinue()
