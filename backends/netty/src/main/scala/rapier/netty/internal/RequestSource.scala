package rapier.netty.internal

import io.netty.handler.codec.http.HttpRequest

/**
 * Where an [[HttpHandler]]'s requests come from, and what it needs to know of each beyond Netty's request object: an
 * HTTP/1.1 connection's [[RequestDecoder]], or an HTTP/2 stream's [[Http2Exchange]].
 */
private[netty] trait RequestSource:
  /** Whether the next request may be decoded now; set by the handler once in the pipeline. */
  var gate: RequestDecoder.Gate

  /** The body length the request just passed on declares: -1 when it declares none, -2 when it can't be read. */
  def declaredLength: Long

  /** Whether a body of no declared length follows `request`, delimited by its framing (chunks, DATA frames). */
  def bodyWithoutLength(request: HttpRequest): Boolean

  /** When a head that has only partly arrived was first seen (`System.nanoTime`), or 0 when none has. */
  def headPendingSince: Long

  /** Skips whatever arrives from now on: the exchange ends after a refusal. */
  def discardInput(): Unit

  /** The gate is open again: what was held back is decoded. */
  def resume(): Unit
