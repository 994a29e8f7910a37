package rapier.netty.internal

import io.netty.buffer.ByteBuf
import io.netty.channel.ChannelHandlerContext
import io.netty.handler.codec.DecoderResult
import io.netty.handler.codec.http.*
import rapier.nettyhttp.{HeadScanner, InvalidRequest}
import rapier.server.spi.RequestSyntax
import rapier.server.spi.RequestSyntax.Invalid

/**
 * Netty's HTTP/1.1 request decoder, made strict where Netty is lenient or leaves the decision to the code above it:
 * one space between the request line's parts, a token for the method, a target in a form a server accepts, a
 * well-formed version (505 for one not served), no obsolete line folding, exactly one valid Host on HTTP/1.1, and no
 * transfer coding but chunked.
 *
 * A request that breaks a rule comes out with a failed decoder result whose cause is an [[InvalidRequest]], carrying
 * the status and message to refuse it with; [[HttpHandler]] then answers and closes the connection.
 *
 * Folding and Host are checked by a [[HeadScanner]], which looks at the head's lines before Netty parses them.
 */
private[netty] final class RequestDecoder(config: HttpDecoderConfig) extends HttpRequestDecoder(config):
  // The head (request line and header section) being received.
  private val head = HeadScanner()
  // After a failure Netty discards what follows; so does this.
  private var failed = false
  // The method of the request line being read, for the check of its target
  private var lineMethod = ""
  private var discarding = false
  // When (System.nanoTime) the head now arriving was first seen incomplete; 0 when none is.
  private var headSince = 0L

  /**
   * When a head that has only partly arrived was first seen (`System.nanoTime`), or 0 when none has: what the
   * header-read deadline is measured from. A head that arrives whole in one read is never timed.
   */
  def headPendingSince: Long = headSince

  /** Skips whatever arrives from now on, undecoded: the connection is closing after a refusal. */
  def discardInput(): Unit =
    discarding = true
    headSince = 0L

  override protected def decode(ctx: ChannelHandlerContext, buffer: ByteBuf, out: java.util.List[AnyRef]): Unit =
    if discarding then
      buffer.skipBytes(buffer.readableBytes)
      return
    if !failed then head.scan(buffer)
    val before = out.size
    super.decode(ctx, buffer, out)
    head.follow(out, before, onHead)
    if headSince == 0L && !failed && head.headStarted(buffer.isReadable) then headSince = System.nanoTime()

  // A function made once: following each decoding step allocates nothing.
  private val onHead: HttpRequest => Unit = request =>
    headSince = 0L
    check(request)

  private def check(request: HttpRequest): Unit =
    if request.decoderResult.isFailure then failed = true
    else
      val problem = headProblem(request)
      if problem != null then
        failed = true
        request.setDecoderResult(DecoderResult.failure(InvalidRequest(problem.nn)))

  private def headProblem(request: HttpRequest): Invalid | Null =
    if head.folded then RequestSyntax.ObsoleteFold
    else
      val headers = request.headers
      val host = if head.hosts == 1 then headers.get(HttpHeaderNames.HOST) else null
      // Netty has already refused a final coding other than chunked, and chunked applied twice.
      val codings =
        if headers.contains(HttpHeaderNames.TRANSFER_ENCODING) then headers.getAll(HttpHeaderNames.TRANSFER_ENCODING)
        else java.util.Collections.emptyList[String]
      RequestSyntax.head(head.hosts, host, request.protocolVersion eq HttpVersion.HTTP_1_1, codings)

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
    val target = super.splitSecondWordInitialLine(line, start, length)
    orRefuse(RequestSyntax.target(target, lineMethod))
    target

  override protected def splitThirdWordInitialLine(line: Array[Byte], start: Int, length: Int): String =
    if !afterOneSpace(line, start) then refuse(RequestSyntax.InvalidSeparator)
    val version = super.splitThirdWordInitialLine(line, start, length)
    orRefuse(RequestSyntax.version(version))
    version

  private def afterOneSpace(line: Array[Byte], at: Int): Boolean =
    at >= 2 && line(at - 1) == ' ' && line(at - 2) != ' ' && line(at - 2) != '\t'

  private def orRefuse(problem: Invalid | Null): Unit = if problem != null then refuse(problem.nn)

  private def refuse(problem: Invalid): Nothing = throw InvalidRequest(problem)
