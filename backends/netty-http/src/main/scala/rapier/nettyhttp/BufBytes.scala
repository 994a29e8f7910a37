package rapier.nettyhttp

import io.netty.buffer.{ByteBuf, Unpooled}
import rapier.server.spi.Http2Frames

/** A Netty buffer as the SPI's readers read bytes: one per reader, pointed at each buffer in turn. */
private[nettyhttp] final class BufBytes extends Http2Frames.Bytes:
  var buf: ByteBuf = Unpooled.EMPTY_BUFFER
  def copy(index: Int, into: Array[Byte], at: Int, n: Int): Unit = buf.getBytes(index, into, at, n)
