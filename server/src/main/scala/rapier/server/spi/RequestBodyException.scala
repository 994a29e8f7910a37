package rapier.server.spi

import java.io.IOException

/**
 * The request body can't be read to its end through the client's doing: it is too large, its framing is broken, or
 * it arrives too slowly. A body's reader gets it (an `InputStream` body throws an `IOException` caused by it), and the
 * request is answered with its [[refusal]] — 413, 400, 408 — whatever the logic does about it: never a 500 for a
 * client's mistake. It carries no stack trace: the client's doing, not the server's.
 */
class RequestBodyException(val refusal: RequestSyntax.Invalid) extends IOException(refusal.message):
  override def fillInStackTrace(): Throwable = this

object RequestBodyException:
  /**
   * The first [[RequestBodyException]] or `rapier.InvalidStreamException` in `e`'s chain of causes, or null: what a
   * logic that wrapped it still carries.
   */
  def findIn(e: Throwable): RequestBodyException | rapier.InvalidStreamException | Null =
    var cause: Throwable | Null = e
    var depth = 0
    while cause != null && depth < 16 do
      cause match
        case found: RequestBodyException => return found
        case found: rapier.InvalidStreamException => return found
        case other => cause = other.nn.getCause
      depth += 1
    null
