package rapier.nettyhttp

import io.netty.buffer.ByteBuf

import java.nio.ByteBuffer

/** How a streamed request body's chunk — a slice of the bytes Netty read — is lent to its reader as a `ByteBuffer`. */
object ChunkView:
  /**
   * The readable bytes of `chunk`, between the returned buffer's position and limit (the position is not 0).
   *
   * `chunk.nioBuffer()` allocates a view per chunk (about 130 bytes, the largest part of what a streamed body allocates
   * beyond Netty's own objects), and so does a slice's `internalNioBuffer`. What is returned here is the buffer that
   * the buffer the chunk was sliced from keeps for its own use, positioned over the chunk: no allocation. That is safe
   * because of how a streamed body is lent: one chunk at a time, taken back (and released) before the next is lent,
   * and Netty uses that buffer of an inbound buffer only for the socket read that filled it, done before the decoder
   * sliced the chunk out of it. Where the slice's place in its buffer can't be known (no memory address), or the
   * chunk is in several pieces, the chunk is viewed as `nioBuffer()` views it.
   */
  def of(chunk: ByteBuf): ByteBuffer =
    val whole = chunk.unwrap()
    if whole != null && whole.nioBufferCount == 1 && chunk.hasMemoryAddress && whole.hasMemoryAddress then
      // The chunk's index 0 is this many bytes into the buffer it was sliced from
      val offset = (chunk.memoryAddress - whole.memoryAddress).toInt
      whole.internalNioBuffer(offset + chunk.readerIndex, chunk.readableBytes)
    else if whole == null && chunk.nioBufferCount == 1 then
      chunk.internalNioBuffer(chunk.readerIndex, chunk.readableBytes)
    else chunk.nioBuffer()
