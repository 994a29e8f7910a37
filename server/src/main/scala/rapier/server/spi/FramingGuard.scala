package rapier.server.spi

import rapier.server.spi.RequestSyntax.Invalid

import java.nio.charset.StandardCharsets

/**
 * A strict reader of a connection's HTTP/1.1 request framing (RFC 9112), between the socket and a server's own parser
 * when that parser is lenient: it passes on what it has checked, in order, and nothing a lenient parser could read
 * differently from a strict one. Bytes come in through [[feed]], and go on through an [[FramingGuard.Out]].
 *
 *   - A head is held until its empty line, then checked whole ([[RequestHead]]): passed on as it came (respelled only
 *     where the parser behind would read it otherwise, `RequestHead.normalized`), or replaced by its [[RefusalMarker]]
 *     request, after which the connection's input is dropped. Line ends are CRLF only; empty lines before a request
 *     line are skipped (RFC 9112 §2.2).
 *   - A body of declared length passes as it comes, uncopied.
 *   - A chunked body is checked byte by byte and passed on re-framed: sizes without extensions, no trailer fields, so
 *     that the parser behind never reads either. Past a framing error, `failed` holds the refusal.
 *   - After a request that asks to switch protocols, the input is held until [[responded]] tells whether the server
 *     switched: then it passes unchecked, or the next head is read.
 *
 * One per connection; not thread-safe (a connection reads in order).
 */
final class FramingGuard(maxLine: Int, maxHeader: Int, marker: RefusalMarker, obsTextAsUtf8: Boolean = false):
  import FramingGuard.*

  private val head = RequestHead(maxLine, maxHeader)
  private var state = Head
  // The head so far when it spans reads, in its first `held` bytes; bytes awaiting a verdict too
  private var buffer: Array[Byte] = Array.emptyByteArray
  private var held = 0
  // Scanning the head: whether a line has started, the previous byte was CR, the current line's start and the count
  private var skipped = false
  private var headLength = 0
  private var lineStart = 0
  private var lines = 0
  private var afterCr = false
  // The body: bytes still to pass of a declared length or a chunk; a chunk's size as it is read; trailer bytes
  private var remaining = 0L
  private var trailer = 0
  private var problem: Invalid | Null = null

  /** The refusal of a body whose framing broke, or null: what follows it was dropped. */
  def failed: Invalid | Null = problem

  /** Whether part of a head has arrived, and waits for the rest: the head deadline runs. */
  def headPending: Boolean = state == Head && (headLength > 0 || skipped)

  /** Whether a refusal ended the connection's input. */
  def closed: Boolean = state == Closed

  /** Whether the server switched protocols: what arrives passes unchecked. */
  def passing: Boolean = state == Pass

  /** Whether input is held until the server says whether it switched protocols. */
  def awaitingVerdict: Boolean = state == Verdict

  /** Checks `length` bytes of `bytes` from `offset`, passing on to `out` what may go on. */
  def feed(bytes: Array[Byte], offset: Int, length: Int, out: Out): Unit =
    var at = offset
    val end = offset + length
    while at < end do
      at = state match
        case Head => scanHead(bytes, at, end, out)
        case Fixed =>
          val n = math.min(remaining, (end - at).toLong).toInt
          out.pass(bytes, at, n)
          remaining -= n
          if remaining == 0L then endMessage()
          at + n
        case Data =>
          val n = math.min(remaining, (end - at).toLong).toInt
          out.pass(bytes, at, n)
          remaining -= n
          if remaining == 0L then state = DataCr
          at + n
        case Verdict =>
          hold(bytes, at, end - at)
          end
        case Pass =>
          out.pass(bytes, at, end - at)
          end
        case Closed => end
        case _ => chunkByte(bytes(at), out, at + 1)

  /** Refuses the head in progress (its deadline passed): `out` gets the refusal's request, and the input ends. */
  def refuse(refusal: Invalid, out: Out): Unit =
    val replaced = marker.request(refusal)
    state = Closed
    out.pass(replaced, 0, replaced.length)

  /**
   * The server's answer to a request that asked to switch protocols: whether it switched. What arrived meanwhile is
   * passed on (unchecked) or read as the next head.
   */
  def responded(switched: Boolean, out: Out): Unit =
    if state == Verdict then
      val waiting = java.util.Arrays.copyOf(buffer, held)
      held = 0
      if switched then state = Pass
      else endMessage()
      feed(waiting, 0, waiting.length, out)

  private def scanHead(bytes: Array[Byte], from: Int, end: Int, out: Out): Int =
    var i = from
    // Empty lines before a request line are skipped, and not passed on.
    while headLength == 0 && i < end && (bytes(i) == '\r' || bytes(i) == '\n') do
      skipped = true
      i += 1
    val start = i
    var complete = false
    while !complete && state == Head && i < end do
      val b = bytes(i)
      // A CR inside a field line is a control character in its value, as Netty's decoder reads it.
      if afterCr && b != '\n' then
        refuse(if lines == 0 then RequestSyntax.BareLineEnd else RequestSyntax.InvalidFieldValue, out)
      else if b == '\n' then
        if !afterCr then refuse(RequestSyntax.BareLineEnd, out)
        else if headLength + (i - start) - 1 == lineStart && lines > 0 then complete = true
        else
          lines += 1
          lineStart = headLength + (i - start) + 1
      else if lines == 0 && headLength + (i - start) > maxLine then refuse(Refusals.lineTooLong(maxLine), out)
      else if headLength + (i - start) > maxLine + maxHeader + 4 then refuse(Refusals.headerTooLarge(maxHeader), out)
      afterCr = b == '\r'
      i += 1
    if state != Head then end
    else if complete then
      if headLength == 0 then checkHead(bytes, start, i, out)
      else
        hold(bytes, start, i - start)
        val whole = java.util.Arrays.copyOf(buffer, held)
        held = 0
        checkHead(whole, 0, whole.length, out)
      i
    else
      // The head goes on in the next read: what came of it waits here.
      if headLength == 0 then held = 0
      hold(bytes, start, i - start)
      headLength += i - start
      i

  private def checkHead(bytes: Array[Byte], start: Int, end: Int, out: Out): Unit =
    head.read(bytes, start, end)
    val refusal = head.problem
    if refusal != null then refuse(refusal.nn, out)
    else
      val normalized = head.normalized(bytes, start, end, obsTextAsUtf8)
      if normalized == null then out.pass(bytes, start, end - start)
      else out.pass(normalized.nn, 0, normalized.nn.length)
      headLength = 0
      lineStart = 0
      lines = 0
      skipped = false
      afterCr = false
      if head.chunked then state = SizeStart
      else if head.length > 0L then
        remaining = head.length
        state = Fixed
      else if head.upgrade then state = Verdict

  private def endMessage(): Unit =
    state = Head
    remaining = 0L
    trailer = 0

  // One byte of a chunked body's framing; returns where the next byte is.
  private def chunkByte(b: Byte, out: Out, next: Int): Int =
    state match
      case SizeStart =>
        val d = hexValue(b)
        if d < 0 then breakFraming()
        else
          remaining = d
          state = Size
      case Size =>
        val d = hexValue(b)
        if d >= 0 then
          if remaining > MaxChunk then breakFraming() else remaining = remaining * 16 + d
        else if b == ';' then state = Extension
        else if b == ' ' || b == '\t' then state = SizeSpace
        else if b == '\r' then state = SizeLf
        else breakFraming()
      case SizeSpace =>
        if b == ';' then state = Extension
        else if b != ' ' && b != '\t' then breakFraming()
      case Extension =>
        // RFC 9112 §7.1.1: extensions are ignored, so only what could end the line early is refused.
        if b == '\r' then state = SizeLf
        else if (b < ' ' && b != '\t' && b >= 0) || b == 0x7f then breakFraming()
      case SizeLf =>
        if b != '\n' then breakFraming()
        else if remaining == 0L then state = TrailerStart
        else
          val line = (java.lang.Long.toHexString(remaining) + "\r\n").getBytes(StandardCharsets.ISO_8859_1)
          out.pass(line, 0, line.length)
          state = Data
      case DataCr => if b == '\r' then state = DataLf else breakFraming()
      case DataLf =>
        if b != '\n' then breakFraming()
        else
          out.pass(Crlf, 0, 2)
          state = SizeStart
      case TrailerStart =>
        if b == '\r' then state = EndLf
        else if b >= 0 && rapier.model.Tokens.isTokenChar(b.toChar) then state = TrailerName
        else breakFraming()
      case TrailerName =>
        if b == ':' then state = TrailerValue
        else if b < 0 || !rapier.model.Tokens.isTokenChar(b.toChar) then breakFraming()
      case TrailerValue =>
        if b == '\r' then state = TrailerLf
        else if (b < ' ' && b != '\t' && b >= 0) || b == 0x7f then breakFraming()
      case TrailerLf => if b == '\n' then state = TrailerStart else breakFraming()
      case EndLf =>
        if b != '\n' then breakFraming()
        else
          out.pass(LastChunk, 0, LastChunk.length)
          endMessage()
    if state >= TrailerStart && state <= TrailerLf then
      trailer += 1
      if trailer > maxHeader then breakFraming()
    next

  private def breakFraming(): Unit =
    problem = Refusals.InvalidBodyFraming
    state = Closed

  private def hold(bytes: Array[Byte], from: Int, n: Int): Unit =
    if held + n > buffer.length then buffer = java.util.Arrays.copyOf(buffer, math.max(held + n, buffer.length * 2))
    System.arraycopy(bytes, from, buffer, held, n)
    held += n

object FramingGuard:
  /** Where checked bytes go on; a slice passed is the receiver's, never written again. */
  trait Out:
    def pass(bytes: Array[Byte], offset: Int, length: Int): Unit

  private val Head = 0
  private val Fixed = 1
  private val Verdict = 2
  private val Pass = 3
  private val Closed = 4
  private val SizeStart = 5
  private val Size = 6
  private val SizeSpace = 7
  private val Extension = 8
  private val SizeLf = 9
  private val Data = 10
  private val DataCr = 11
  private val DataLf = 12
  private val TrailerStart = 13
  private val TrailerName = 14
  private val TrailerValue = 15
  private val TrailerLf = 16
  private val EndLf = 17

  // A chunk's size stops growing past 2^56: far past any limit, and no overflow.
  private val MaxChunk = 1L << 56
  private val Crlf = "\r\n".getBytes(StandardCharsets.ISO_8859_1)
  private val LastChunk = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)

  private def hexValue(b: Byte): Int =
    if b >= '0' && b <= '9' then b - '0'
    else if b >= 'a' && b <= 'f' then b - 'a' + 10
    else if b >= 'A' && b <= 'F' then b - 'A' + 10
    else -1
