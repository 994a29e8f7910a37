package rapier.netty.internal

import io.netty.buffer.ByteBuf
import rapier.server.spi.{BodyArray, BodyBudget, RequestSyntax}

/**
 * The body of the request a connection is receiving, each chunk copied once as it arrives into a [[BodyArray]], which
 * grows with what arrived, whatever the Content-Length announced, within the server's budget. No chunk is kept: a body
 * sent in 1-byte chunks costs a copy per byte, not a consolidation of all before it. One per connection, reused request
 * after request.
 */
private[netty] final class BodyBuffer(budget: BodyBudget, maxBodySize: Long) extends BodyArray(maxBodySize, budget):
  private var framed = false

  /** Starts a body of `length` bytes (-1 when not declared); `chunked` when its transfer coding says so. */
  def begin(length: Long, chunked: Boolean): Unit =
    begin(length)
    framed = length >= 0 || chunked

  /** Takes in a chunk; a refusal when it can't be taken (the body is then to be discarded). */
  def add(buf: ByteBuf): RequestSyntax.Invalid | Null =
    val n = buf.readableBytes
    if n == 0 then null
    else if !framed then BodyBuffer.Unframed
    else
      val refused = reserve(n)
      if refused == null then
        buf.getBytes(buf.readerIndex, array, size, n)
        added(n)
      refused

  /** The complete body, in one array, no longer counted in the budget: the request holds it now. */
  def take(): Array[Byte] =
    val body = result()
    budget.give(body.length)
    body

  /** Drops the body being read. */
  def discard(): Unit = drop()

private[netty] object BodyBuffer:
  private val Unframed =
    RequestSyntax.Invalid(
      rapier.model.StatusCode.BadRequest,
      "A body needs a Content-Length or chunked Transfer-Encoding"
    )
