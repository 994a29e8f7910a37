package rapier.netty.internal

import io.netty.buffer.{ByteBuf, ByteBufAllocator, CompositeByteBuf}
import rapier.server.spi.{Refusals, RequestSyntax}

import java.util.concurrent.atomic.LongAdder

/**
 * The body of the request a connection is receiving, copied once: into an array of the declared Content-Length as
 * its chunks arrive, or, when no length is declared (chunked), from the retained chunks into an array of their total
 * size at the end. One per connection, reused request after request; what it holds is counted in `held`.
 */
private[netty] final class BodyBuffer(alloc: ByteBufAllocator, held: LongAdder, maxBodySize: Long):
  private var sized: Array[Byte] | Null = null
  private var filled = 0
  private var chunks: CompositeByteBuf | Null = null

  /** Starts a body of `length` bytes (-1 when not declared); `chunked` when its transfer coding says so. */
  def begin(length: Long, chunked: Boolean): Unit =
    filled = 0
    if length > 0 then
      sized = new Array[Byte](length.toInt)
      held.add(length)
    else if length < 0 && chunked then chunks = alloc.compositeBuffer(1024)

  /** Takes in a chunk; a refusal when it can't be taken (the body is then to be discarded). */
  def add(buf: ByteBuf): RequestSyntax.Invalid | Null =
    val n = buf.readableBytes
    if n == 0 then null
    else if sized != null then
      val array = sized.nn
      if filled + n > array.length then Refusals.BodyLongerThanLength
      else
        buf.getBytes(buf.readerIndex, array, filled, n)
        filled += n
        null
    else if chunks != null then
      val all = chunks.nn
      if all.readableBytes.toLong + n > maxBodySize then Refusals.bodyTooLarge(maxBodySize)
      else
        all.addComponent(true, buf.retain())
        held.add(n)
        null
    else BodyBuffer.Unframed

  /** The complete body, in one array. */
  def take(): Array[Byte] =
    release()
    if sized != null then
      val array = sized.nn
      sized = null
      if filled == array.length then array else java.util.Arrays.copyOf(array, filled)
    else if chunks != null then
      val all = chunks.nn
      chunks = null
      try
        val array = new Array[Byte](all.readableBytes)
        all.readBytes(array)
        array
      finally all.release()
    else BodyBuffer.Empty

  /** Drops the body being read. */
  def discard(): Unit =
    release()
    sized = null
    if chunks != null then
      chunks.nn.release()
      chunks = null

  /** Counts the body out of the server's held bytes, as it is handed over or dropped. */
  private def release(): Unit =
    val bytes: Long =
      if sized != null then sized.nn.length.toLong else if chunks != null then chunks.nn.readableBytes.toLong else 0L
    if bytes != 0L then held.add(-bytes)

private[netty] object BodyBuffer:
  private val Empty = new Array[Byte](0)
  private val Unframed =
    RequestSyntax.Invalid(
      rapier.model.StatusCode.BadRequest,
      "A body needs a Content-Length or chunked Transfer-Encoding"
    )
