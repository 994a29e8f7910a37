package rapier.server.spi

import rapier.model.Utf8Check

import java.nio.charset.StandardCharsets

/**
 * RFC 6455's rules on what a client sends, checked on the connection's bytes as they come, for a backend whose own
 * WebSocket layer is laxer or slower to tell: a reserved bit or opcode, an unmasked frame, a fragmented or long
 * control frame, a continuation with nothing to continue or a message begun inside another (§5.2, §5.4, §5.5) are
 * 1002; a close whose payload is one byte or whose code is not one a client may send (§7.4) 1002, its reason not UTF-8
 * 1007; a message of the kind the endpoint doesn't take 1003, one past its limit 1009 at the frame header that takes it
 * there; text that can't be UTF-8 1007 at its first byte that can't, inside a frame still arriving. After the
 * client's close, or a breach, frames are only followed, for [[clientClosed]]: a server that closed on a breach ends the
 * connection once the client answers with its own close.
 *
 * One per WebSocket; not thread-safe (a connection reads in order). Payload bytes are unmasked only for text and close
 * frames, a byte at a time, with no copy.
 */
final class WebSocketWatch(text: Boolean, maxMessageSize: Int):
  import WebSocketWatch.*

  private var state = Header
  // The frame header so far: its first two bytes, then the extended length and the mask key, in `header`
  private val header = new Array[Byte](14)
  private var headerHeld = 0
  private var headerLength = 2
  // The frame now read: its opcode, payload bytes left, mask key and where the payload's next byte falls in it
  private var opcode = 0
  private var fin = false
  private var left = 0L
  private var mask = 0
  private var maskAt = 0
  // The message now read: whether one is begun, whether it is text, and its length so far
  private var inMessage = false
  private var textMessage = false
  private var messageLength = 0L
  private val utf8 = Utf8Check()
  // A close frame's payload, gathered
  private val closing = new Array[Byte](125)
  private var closingHeld = 0
  private var breach: Breach | Null = null
  // Bytes fed so far before the current feed; where the frame now read began; where the frame that broke a rule began
  private var fed = 0L
  private var frameAt = 0L
  private var breachFrameAt = -1L
  private var closedByClient = false

  /** The rule the client broke, once it has; what it sent after is not checked. */
  def broken: Breach | Null = breach

  /**
   * How many of the bytes fed before the breach keep the rules: those before the frame that broke one (all of them
   * while none has), which a server may read before it closes.
   */
  def keptRules: Long = if breachFrameAt < 0 then fed else breachFrameAt

  /** Whether the client's close frame has been read whole. */
  def clientClosed: Boolean = closedByClient

  // Whether the rules are still checked: not after a breach or the client's close
  private def checking: Boolean = breach == null && !closedByClient

  /** Reads the next bytes the client sent; the rule they break, if they do. */
  def feed(bytes: Array[Byte], offset: Int, length: Int): Breach | Null =
    var i = offset
    val end = offset + length
    while i < end do
      if state == Header then
        if headerHeld == 0 then frameAt = fed + (i - offset)
        header(headerHeld) = bytes(i)
        headerHeld += 1
        i += 1
        if headerHeld == 2 then
          val masked = (header(1) & 0x80) != 0
          headerLength = 2 + extendedLength(header(1)) + (if masked then 4 else 0)
          if !masked then fail(1002, "A client's frame is not masked.")
        if headerHeld == headerLength then frameBegins()
      else
        val n = math.min(left, (end - i).toLong).toInt
        if state == Checked then payload(bytes, i, n)
        i += n
        left -= n
        if left == 0 then frameEnds()
    fed += length
    breach

  private def extendedLength(second: Byte): Int = (second & 0x7f) match
    case 126 => 2
    case 127 => 8
    case _ => 0

  private def frameBegins(): Unit =
    val first = header(0) & 0xff
    fin = (first & 0x80) != 0
    opcode = first & 0x0f
    val extended = extendedLength(header(1))
    left =
      if extended == 0 then (header(1) & 0x7f).toLong
      else
        var l = 0L
        for k <- 2 until 2 + extended do l = (l << 8) | (header(k) & 0xff)
        l
    mask = if (header(1) & 0x80) != 0 then readInt(header, headerLength - 4) else 0
    maskAt = 0
    headerHeld = 0
    closingHeld = 0
    val control = opcode >= 8
    if checking then check(first, control)
    state = if opcode == Close || (checking && textMessage && !control) then Checked else Skipped
    // Past 2^63 (refused): followed as a frame without end
    if left < 0 then left = Long.MaxValue
    if left == 0 then frameEnds()

  private def check(first: Int, control: Boolean): Unit =
    if (first & 0x70) != 0 then fail(1002, "A reserved bit is set.")
    else if (opcode > 2 && opcode < 8) || opcode > 10 then fail(1002, s"The opcode $opcode is reserved.")
    else if left < 0 then fail(1002, "A frame's length is over 2^63.")
    else if control && !fin then fail(1002, "A control frame is fragmented.")
    else if control && left > 125 then fail(1002, "A control frame is longer than 125 bytes.")
    else if opcode == Continuation && !inMessage then fail(1002, "A continuation frame has no message to continue.")
    else if (opcode == Text || opcode == Binary) && inMessage then
      fail(1002, "A message begins before the last one ended.")
    else if opcode == Text && !text then fail(1003, "This WebSocket takes binary messages.")
    else if opcode == Binary && text then fail(1003, "This WebSocket takes text messages.")
    else if !control && (if opcode == Continuation then messageLength else 0L) + left > maxMessageSize then
      fail(1009, MessageJoiner.tooLong(maxMessageSize))
    else if !control then
      if opcode != Continuation then
        inMessage = true
        textMessage = opcode == Text
        messageLength = 0L
        utf8.reset()
      messageLength += left

  private def payload(bytes: Array[Byte], from: Int, n: Int): Unit =
    var k = 0
    var at = maskAt
    if opcode == Close then
      while k < n do
        val b = bytes(from + k) ^ (mask >>> (24 - 8 * at))
        at = (at + 1) & 3
        if closingHeld < closing.length then closing(closingHeld) = b.toByte
        closingHeld += 1
        k += 1
    else
      // Text, eight bytes at a time while they are ASCII outside a character: unmasked with the key (rotated to where
      // the payload is in it) twice over, their high bits looked at together
      var valid = true
      while valid && k < n do
        if n - k >= 8 && utf8.complete && ((word(bytes, from + k) ^ WebSocketWatch.key(mask, at)) & HighBits) == 0 then
          k += 8
        else
          val b = (bytes(from + k) ^ (mask >>> (24 - 8 * at))) & 0xff
          at = (at + 1) & 3
          valid = utf8.accepts(b)
          k += 1
      if !valid then fail(1007, MessageJoiner.NotUtf8)
    maskAt = at

  private def frameEnds(): Unit =
    state = Header
    if opcode == Close then
      if checking then closed()
      closedByClient = true
    else if checking && opcode < 8 && fin then
      if textMessage && !utf8.complete then fail(1007, MessageJoiner.NotUtf8)
      else inMessage = false

  // The client's close: checked, then nothing after it is looked at (the server answers it and ends)
  private def closed(): Unit =
    if closingHeld == 1 then fail(1002, "A close frame's payload is one byte.")
    else if closingHeld >= 2 then
      val code = ((closing(0) & 0xff) << 8) | (closing(1) & 0xff)
      if !sendable(code) then fail(1002, s"The close code $code is not one a client may send.")
      else
        utf8.reset()
        var k = 2
        var valid = true
        while valid && k < closingHeld do
          valid = utf8.accepts(closing(k) & 0xff)
          k += 1
        if !valid || !utf8.complete then fail(1007, "A close frame's reason is not valid UTF-8.")

  // The frame now read is followed to its end, unchecked
  private def fail(code: Int, reason: String): Unit = if checking then
    breach = Breach(code, reason)
    breachFrameAt = frameAt
    if state == Checked && opcode != Close then state = Skipped

object WebSocketWatch:
  private val Continuation = 0
  private val Text = 1
  private val Binary = 2
  private val Close = 8
  // Reading a frame's header; its payload, looked at or skipped
  private val Header = 0
  private val Checked = 1
  private val Skipped = 2

  private val HighBits = 0x8080808080808080L
  private val Words = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
    classOf[Array[Long]],
    java.nio.ByteOrder.BIG_ENDIAN
  )

  // Eight bytes from `at`, as one number
  private def word(bytes: Array[Byte], at: Int): Long = Words.get(bytes, at).asInstanceOf[Long]

  // The mask key twice over, from its byte `at` on: what eight payload bytes from there are masked with
  private def key(mask: Int, at: Int): Long =
    val rotated = Integer.rotateLeft(mask, 8 * at)
    (rotated.toLong << 32) | (rotated & 0xffffffffL)

  private def readInt(b: Array[Byte], at: Int): Int =
    ((b(at) & 0xff) << 24) | ((b(at + 1) & 0xff) << 16) | ((b(at + 2) & 0xff) << 8) | (b(at + 3) & 0xff)

  /**
   * Whether a close code may be sent (RFC 6455 §7.4): 1000-1003, 1007-1011 and 3000-4999; not 1004-1006 or 1015
   * (reserved, or never sent), nor 1012-1014, registered after the RFC for servers only.
   */
  def sendable(code: Int): Boolean =
    (code >= 1000 && code <= 1003) ||
      (code >= 1007 && code <= 1011) ||
      (code >= 3000 && code <= 4999)

  /** A rule broken: the code and reason of the close the server sends before it ends the connection. */
  final case class Breach(code: Int, reason: String):
    /** The server's close frame (unmasked, RFC 6455 §5.5.1). */
    def frame: Array[Byte] = closeFrame(code, reason)

  /** A server's close frame with `code` and `reason` (cut to the 123 bytes a control frame leaves it). */
  def closeFrame(code: Int, reason: String): Array[Byte] =
    val r = reason.getBytes(StandardCharsets.UTF_8)
    val n = math.min(r.length, 123)
    val frame = new Array[Byte](4 + n)
    frame(0) = (0x80 | Close).toByte
    frame(1) = (2 + n).toByte
    frame(2) = (code >> 8).toByte
    frame(3) = code.toByte
    System.arraycopy(r, 0, frame, 4, n)
    frame
