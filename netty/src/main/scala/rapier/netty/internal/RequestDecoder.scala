package rapier.netty.internal

import io.netty.buffer.ByteBuf
import io.netty.channel.ChannelHandlerContext
import io.netty.handler.codec.DecoderResult
import io.netty.handler.codec.http.*
import io.netty.util.ByteProcessor
import rapier.server.internal.RequestSyntax
import rapier.server.internal.RequestSyntax.Invalid

/**
 * Netty's HTTP/1.1 request decoder, made strict where Netty is lenient or leaves the decision to the code above it:
 * one space between the request line's parts, a token for the method, a target in a form a server accepts, a
 * well-formed version (505 for one not served), no obsolete line folding, exactly one valid Host on HTTP/1.1, and no
 * transfer coding but chunked.
 *
 * A request that breaks a rule comes out with a failed decoder result whose cause is an [[InvalidRequest]], carrying
 * the status and message to refuse it with; [[HttpHandler]] then answers and closes the connection.
 *
 * Folding and Host are checked by scanning the head's lines before Netty parses them. Netty consumes every complete
 * line of a head as soon as it arrives, and keeps a partial one in the buffer, so the scan looks at each complete line
 * exactly once: it stops at the first partial line and starts there again when more bytes arrive.
 */
private[netty] final class RequestDecoder(config: HttpDecoderConfig) extends HttpRequestDecoder(config):
  // The head (request line and header section) being received.
  private var inHead = true
  private var lines = 0
  private var hosts = 0
  private var folded = false
  // Whether empty lines were skipped before the request line.
  private var skipped = false
  // After a failure Netty discards what follows; so does this.
  private var failed = false
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
    if inHead && !failed then scanHead(buffer)
    val before = out.size
    super.decode(ctx, buffer, out)
    var i = before
    while i < out.size do
      out.get(i) match
        case request: HttpRequest =>
          inHead = false
          headSince = 0L
          check(request)
          if request.isInstanceOf[LastHttpContent] then nextHead()
        case _: LastHttpContent => nextHead()
        case _ =>
      i += 1
    if headSince == 0L && inHead && !failed && (lines > 0 || skipped || buffer.isReadable) then
      headSince = System.nanoTime()

  private def nextHead(): Unit =
    inHead = true
    lines = 0
    hosts = 0
    folded = false
    skipped = false

  /** Looks at each complete line of the head in `buffer`, up to its end or the first partial line. */
  private def scanHead(buffer: ByteBuf): Unit =
    var start = buffer.readerIndex
    val end = buffer.writerIndex
    if lines == 0 then
      // Empty lines before a request line are skipped (RFC 9112 §2.2), as Netty does.
      while start < end && { val b = buffer.getByte(start); b == '\r' || b == '\n' } do
        skipped = true
        start += 1
    var more = true
    while more && start < end do
      val lf = buffer.forEachByte(start, end - start, ByteProcessor.FIND_LF) // a shared processor: no allocation
      if lf < 0 then more = false
      else
        val length = if lf > start && buffer.getByte(lf - 1) == '\r' then lf - 1 - start else lf - start
        if length == 0 && lines > 0 then more = false // the end of the head
        else
          if lines > 0 then
            val first = buffer.getByte(start)
            if first == ' ' || first == '\t' then folded = true
            else if length >= 5 && isHost(buffer, start) then hosts += 1
          lines += 1
          start = lf + 1

  private def isHost(buffer: ByteBuf, at: Int): Boolean =
    (buffer.getByte(at) | 0x20) == 'h' &&
      (buffer.getByte(at + 1) | 0x20) == 'o' &&
      (buffer.getByte(at + 2) | 0x20) == 's' &&
      (buffer.getByte(at + 3) | 0x20) == 't' &&
      buffer.getByte(at + 4) == ':'

  private def check(request: HttpRequest): Unit =
    if request.decoderResult.isFailure then failed = true
    else
      val problem = headProblem(request)
      if problem != null then
        failed = true
        request.setDecoderResult(DecoderResult.failure(InvalidRequest(problem.nn)))

  private def headProblem(request: HttpRequest): Invalid | Null =
    if folded then RequestSyntax.ObsoleteFold
    else
      val headers = request.headers
      val host = if hosts == 1 then headers.get(HttpHeaderNames.HOST) else null
      // Netty has already refused a final coding other than chunked, and chunked applied twice.
      val codings =
        if headers.contains(HttpHeaderNames.TRANSFER_ENCODING) then headers.getAll(HttpHeaderNames.TRANSFER_ENCODING)
        else java.util.Collections.emptyList[String]
      RequestSyntax.head(hosts, host, request.protocolVersion eq HttpVersion.HTTP_1_1, codings)

  override protected def splitFirstWordInitialLine(line: Array[Byte], start: Int, length: Int): String =
    // The line is at the start of Netty's scratch array: a method elsewhere follows whitespace. The space after it
    // is checked with the target.
    if start != 0 then refuse(RequestSyntax.InvalidSeparator)
    val method = super.splitFirstWordInitialLine(line, start, length)
    orRefuse(RequestSyntax.method(method))
    method

  override protected def splitSecondWordInitialLine(line: Array[Byte], start: Int, length: Int): String =
    if !afterOneSpace(line, start) then refuse(RequestSyntax.InvalidSeparator)
    val target = super.splitSecondWordInitialLine(line, start, length)
    orRefuse(RequestSyntax.target(target))
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

/** A request refused by [[RequestDecoder]]: the status and message to answer. Carries no stack trace. */
private[netty] final class InvalidRequest(val problem: Invalid)
    extends RuntimeException(problem.message, null, false, false)
