package rapier.nettyhttp

import io.netty.handler.codec.http.HttpRequestDecoder
import rapier.server.spi.RequestSyntax
import rapier.server.spi.RequestSyntax.Invalid

/**
 * The request line read strictly by a decoder on Netty's: one space between its parts, a token for the method, a
 * target in a form a server accepts, a well-formed version (505 for one not served), no bare CR before its end.
 * Netty's decoder splits the line on any run of whitespace and checks none of these; a line that breaks one fails the
 * decoder's result with an [[InvalidRequest]] carrying the refusal.
 */
trait StrictRequestLine extends HttpRequestDecoder:
  // The method and target of the request line being read: the target is checked once the line's end is known
  private var lineMethod = ""
  private var lineTarget = ""

  override protected def splitFirstWordInitialLine(line: Array[Byte], start: Int, length: Int): String =
    // The line is at the start of Netty's scratch array: a method elsewhere follows whitespace. The space after it
    // is checked with the target.
    if start != 0 then refuse(RequestSyntax.InvalidSeparator)
    val method = super.splitFirstWordInitialLine(line, start, length)
    orRefuse(RequestSyntax.method(method))
    lineMethod = method
    method

  override protected def splitSecondWordInitialLine(line: Array[Byte], start: Int, length: Int): String =
    if !afterOneSpace(line, start) then refuse(RequestSyntax.InvalidSeparator)
    lineTarget = super.splitSecondWordInitialLine(line, start, length)
    lineTarget

  override protected def splitThirdWordInitialLine(line: Array[Byte], start: Int, length: Int): String =
    if !afterOneSpace(line, start) then refuse(RequestSyntax.InvalidSeparator)
    orRefuse(RequestSyntax.target(lineTarget, lineMethod))
    val version = super.splitThirdWordInitialLine(line, start, length)
    val problem = RequestSyntax.version(version)
    // The third word runs to the line's end (Netty's ends at LF, less a CR before it): a CR left in it is bare, a space
    // separates a fourth part. Looked for only in a version that is not one.
    if problem eq RequestSyntax.InvalidVersion then
      if version.indexOf('\r') >= 0 then refuse(RequestSyntax.BareLineEnd)
      if version.indexOf(' ') >= 0 || version.indexOf('\t') >= 0 then refuse(RequestSyntax.InvalidSeparator)
    orRefuse(problem)
    version

  private def afterOneSpace(line: Array[Byte], at: Int): Boolean =
    at >= 2 && line(at - 1) == ' ' && line(at - 2) != ' ' && line(at - 2) != '\t'

  private def orRefuse(problem: Invalid | Null): Unit = if problem != null then refuse(problem.nn)

  private def refuse(problem: Invalid): Nothing = throw InvalidRequest(problem)
