package rapier.nettyhttp

import rapier.server.spi.{Refusals, RequestSyntax}
import rapier.server.spi.RequestSyntax.Invalid

/**
 * The cause of a failed decoder result that a strict decoder set on a request it refuses: the status and message to
 * answer it with. Carries no stack trace.
 */
final class InvalidRequest(val problem: Invalid) extends RuntimeException(problem.message, null, false, false)

object InvalidRequest:
  private val NotHttp = Invalid(rapier.model.StatusCode.BadRequest, "The request is not valid HTTP/1.1")

  /**
   * The refusal of a head Netty's decoder failed, in the words Rapier's own checks use for the same fault (and the
   * framing guard of its other servers), so that every server says the same of the same request. Netty (and Vert.x's
   * header validation on it) tells the fault by its exception's class or message only; one not named here gets the
   * general words. The kit's corpus checks each message against every server.
   */
  def of(cause: Throwable, maxLine: Int, maxHeader: Int): Invalid =
    import io.netty.handler.codec.http.*
    cause match
      case invalid: InvalidRequest => invalid.problem
      case _: TooLongHttpLineException => Refusals.lineTooLong(maxLine)
      case _: TooLongHttpHeaderException => Refusals.headerTooLarge(maxHeader)
      case _: InvalidLineSeparatorException => RequestSyntax.BareLineEnd
      case _: ContentLengthNotAllowedException => RequestSyntax.LengthAndChunked
      case _: TransferEncodingNotAllowedException => RequestSyntax.InvalidTransferEncoding
      case e: IllegalArgumentException if e.getMessage != null => byMessage(e.getMessage)
      case _ => NotHttp

  private def byMessage(m: String): Invalid =
    if m.startsWith("Multiple Content-Length") then RequestSyntax.DuplicateContentLength
    else if m.startsWith("Content-Length value") then Refusals.InvalidContentLength
    else if m.startsWith("a header name") || m.startsWith("No colon") || m.startsWith("empty headers") then
      RequestSyntax.InvalidFieldName
    else if m.startsWith("Validation failed for header") || m.startsWith("Invalid separator") ||
      m.startsWith("a header value") || m.startsWith("only '\\n' is allowed")
    then RequestSyntax.InvalidFieldValue
    else if m.contains("transfer coding") || m.contains("Transfer-Encoding") then RequestSyntax.InvalidTransferEncoding
    else if m.startsWith("Illegal character in request line") then RequestSyntax.InvalidSeparator
    else if m.startsWith("text is empty") then RequestSyntax.InvalidVersion
    else NotHttp
