package rapier.nettyhttp

import io.netty.buffer.ByteBuf
import io.netty.handler.codec.http.{DefaultHttpContent, HttpRequest, LastHttpContent}
import rapier.server.spi.RequestSyntax

/**
 * Looks at the head of each request on a connection (request line and header section) before Netty's decoder parses
 * it, for what that decoder lets through or folds away: obsolete line folding (RFC 9112 §5.2), which it joins into the
 * previous field's value, a field with an empty name, which it drops, and how many Host fields there are, which its
 * parsed headers no longer tell.
 *
 * Netty's decoder consumes every complete line of a head as soon as it arrives and keeps a partial one in its buffer,
 * so calling [[scan]] on that buffer before each decoding step looks at each complete line exactly once: it stops at
 * the first partial line and starts there again when more bytes arrive. The decoder's output, passed to [[follow]]
 * after each step, tells where heads end and the next begins. One per connection; used on its event loop only.
 */
final class HeadScanner:
  private var inHead = true
  private var lines = 0
  private var hostFields = 0
  private var foldedField = false
  private var emptyName = false
  // Whether empty lines were skipped before the request line.
  private var skipped = false

  /** What the current head's lines break that the decoder lets through: a fold, a field with no name; or null. */
  def problem: RequestSyntax.Invalid | Null =
    if foldedField then RequestSyntax.ObsoleteFold else if emptyName then RequestSyntax.InvalidFieldName else null

  /** How many Host fields the current head has. */
  def hosts: Int = hostFields

  /** Whether no byte of the next head has been looked at: the last request ended, and nothing of the next was seen. */
  def betweenMessages: Boolean = inHead && lines == 0 && !skipped

  /** Whether part of a head has arrived and is waiting for the rest. */
  def headStarted(readable: Boolean): Boolean = inHead && (lines > 0 || skipped || readable)

  /**
   * Looks at each complete line of the head in `buffer` not seen yet, up to the head's end or the first partial line.
   */
  def scan(buffer: ByteBuf): Unit =
    if inHead then
      var start = buffer.readerIndex
      val end = buffer.writerIndex
      if lines == 0 then
        // Empty lines before a request line are skipped (RFC 9112 §2.2), as Netty does.
        while start < end && { val b = buffer.getByte(start); b == '\r' || b == '\n' } do
          skipped = true
          start += 1
      var more = true
      while more && start < end do
        val lf = buffer.indexOf(start, end, '\n') // eight bytes at a time where the platform allows
        if lf < 0 then more = false
        else if lines == 0 then // the request line
          lines = 1
          start = lf + 1
        else
          // A field line's first byte tells all but Host: a fold, or the empty line that ends the head.
          val first = buffer.getByte(start)
          if lf == start || (first == '\r' && lf == start + 1) then more = false
          else
            if first == ' ' || first == '\t' then foldedField = true
            else if first == ':' then emptyName = true
            else if (first | 0x20) == 'h' && lf - start >= 5 && isHost(buffer, start) then hostFields += 1
            lines += 1
            start = lf + 1

  /**
   * Follows what a decoding step added to `out` from index `from` on: a request ends its head (`onHead` sees it, to
   * check it), the end of a message starts the next head.
   */
  def follow(out: java.util.List[AnyRef], from: Int, onHead: HttpRequest => Unit): Unit =
    var i = from
    while i < out.size do
      val message = out.get(i)
      // A body's chunks, most of what the decoder produces on a busy connection, are passed over on their class alone,
      // without the interface tests below (each a search of the class's interfaces when it fails).
      if message.getClass ne classOf[DefaultHttpContent] then
        message match
          case request: HttpRequest =>
            headDecoded()
            onHead(request)
            if request.isInstanceOf[LastHttpContent] then messageDecoded()
          case _: LastHttpContent => messageDecoded()
          case _ =>
      i += 1

  /** The decoder produced the request of the current head: what follows is its body, until [[messageDecoded]]. */
  def headDecoded(): Unit = inHead = false

  /** The decoder produced the end of a request: the next head starts. */
  def messageDecoded(): Unit =
    inHead = true
    lines = 0
    hostFields = 0
    foldedField = false
    emptyName = false
    skipped = false

  private def isHost(buffer: ByteBuf, at: Int): Boolean =
    (buffer.getByte(at) | 0x20) == 'h' &&
      (buffer.getByte(at + 1) | 0x20) == 'o' &&
      (buffer.getByte(at + 2) | 0x20) == 's' &&
      (buffer.getByte(at + 3) | 0x20) == 't' &&
      buffer.getByte(at + 4) == ':'
