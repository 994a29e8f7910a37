package rapier.server.spi

import rapier.server.{BackendOptions, EndpointChain}

/**
 * What a backend does with a request once its head has arrived and passed its syntax checks, decided here for every
 * backend: refuse it (with the problem to answer), serve it with no body, read its body first (within `maxBodySize`
 * and the server's [[BodyBudget]]), or hand it over at once with its body streamed (within `maxStreamedBodySize`). A
 * backend only does the I/O its decision asks for. One per server; the decisions are made once, at start, so deciding
 * allocates nothing.
 */
final class Admission(options: BackendOptions):
  import Admission.*

  /**
   * The server's request-body budget ([[BackendOptions.maxBodyMemory]]): a body to read first whose first array it can't
   * afford now is refused before a byte of it is read (503, `Retry-After`).
   */
  val budget: BodyBudget = BodyBudget(options.maxBodyMemory.getOrElse(BodyBudget.default(options.maxBodySize)))

  private val readFirst = ReadFirst(options.maxBodySize, continues = false)
  private val readFirstContinuing = ReadFirst(options.maxBodySize, continues = true)
  private val stream = Streamed(options.maxStreamedBodySize, continues = false)
  private val streamContinuing = Streamed(options.maxStreamedBodySize, continues = true)
  private val tooLarge = Refusals.bodyTooLarge(options.maxBodySize)
  private val streamedTooLarge = Refusals.bodyTooLarge(options.maxStreamedBodySize)

  /**
   * The decision for a request routed to `chain` (null when no endpoint takes it: its rejection reads no body it needs,
   * but the body is read within `maxBodySize`, so that the connection can go on).
   *
   * @param length
   *   the declared Content-Length: -1 when none is declared, -2 when the field can't be read as one
   * @param chunked
   *   whether the request's transfer coding is chunked
   * @param expect
   *   the Expect field, if any
   * @param http10
   *   whether the request is HTTP/1.0
   * @param draining
   *   whether the server is shutting down
   */
  def decide(
      chain: EndpointChain[?] | Null,
      length: Long,
      chunked: Boolean,
      expect: String | Null,
      http10: Boolean,
      draining: Boolean
  ): Decision | RequestSyntax.Invalid =
    if draining then Refusals.ShuttingDown
    else if length == -2L then Refusals.InvalidContentLength
    else
      val streams = chain != null && chain.nn.streamsBody
      if length > (if streams then options.maxStreamedBodySize else options.maxBodySize) then
        // Answered before the body is read, and without `100 Continue`: the client need not send it at all.
        if streams then streamedTooLarge else tooLarge
      else if RequestSyntax.unsupportedExpectation(expect, http10) then Refusals.UnsupportedExpectation
      else if length <= 0L && !chunked then NoBody
      else
        val continues = RequestSyntax.expectsContinue(expect, http10)
        if streams then if continues then streamContinuing else stream
        else if budget.held + math.min(length, BodyArray.WholeAtOnce.toLong) > budget.limit then Refusals.Busy
        else if continues then readFirstContinuing
        else readFirst

object Admission:
  /**
   * A Content-Length field's value as `decide` takes it: -1 for none, -2 for one that is not a length (anything but
   * digits, around which whitespace is allowed, or a number past `Long`).
   */
  def declaredLength(field: String | Null): Long =
    if field == null then -1L
    else
      val text = field.nn.trim
      if text.isEmpty || text.length > 18 || !text.forall(c => c >= '0' && c <= '9') then -2L else text.toLong

  /** What to do with a request's body. */
  sealed abstract class Decision

  /** The request has no body: serve it now. */
  case object NoBody extends Decision

  /**
   * Read the body whole (a [[BodyArray]], within `limit`), then serve the request; `continues` when the client awaits
   * `100 Continue` before it sends the body: answer it now.
   */
  final class ReadFirst private[Admission] (val limit: Long, val continues: Boolean) extends Decision

  /**
   * Serve the request now, its body streamed to the logic as it reads (within `limit`); `continues` when the client
   * awaits `100 Continue`: answer it at the logic's first pull, so that logic that answers without reading never gets
   * the body.
   */
  final class Streamed private[Admission] (val limit: Long, val continues: Boolean) extends Decision
