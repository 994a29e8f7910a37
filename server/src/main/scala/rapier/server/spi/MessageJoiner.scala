package rapier.server.spi

/**
 * A WebSocket message joined from its frames' payloads, for a backend whose server hands over frames rather than
 * messages: within the endpoint's `limit` (1009 past it, the parts dropped), a text message's UTF-8 checked frame by
 * frame, refused at the first frame that can't continue it (1007). `whole` gets each message after its last frame,
 * `refuse` the close of one that can't be taken. Used on the connection's loop only.
 */
final class MessageJoiner(limit: Int, whole: (Array[Byte], Boolean) => Unit, refuse: (Int, String) => Unit):
  private var parts: java.util.ArrayList[Array[Byte]] | Null = null
  private var size = 0
  private var isText = false
  private val utf8 = Utf8Check()

  /** Whether the message being joined is text: what a continuation frame carries. */
  def text: Boolean = isText

  /** Adds a frame's payload; `text` counts for a message's first frame, `last` ends the message. */
  def add(payload: Array[Byte], text: Boolean, last: Boolean): Unit =
    if parts == null then
      isText = text
      utf8.reset()
    if size.toLong + payload.length > limit then
      drop()
      refuse(1009, MessageJoiner.tooLong(limit))
    else if isText && !(utf8.accepts(payload) && (!last || utf8.complete)) then
      drop()
      refuse(1007, "A text message is not valid UTF-8.")
    else
      if parts == null then parts = java.util.ArrayList(1)
      parts.nn.add(payload)
      size += payload.length
      if last then
        val message = joined()
        drop()
        whole(message, isText)

  private def drop(): Unit =
    parts = null
    size = 0

  private def joined(): Array[Byte] =
    val all = parts.nn
    if all.size == 1 then all.get(0)
    else
      val message = new Array[Byte](size)
      var at = 0
      all.forEach { p =>
        System.arraycopy(p, 0, message, at, p.length)
        at += p.length
      }
      message

object MessageJoiner:
  /** The close reason of a message past the limit (1009). */
  def tooLong(limit: Int): String = s"A message is longer than this WebSocket's limit of $limit bytes."

/**
 * UTF-8 checked as its bytes come, in any number of parts (RFC 3629 §4: no overlong forms, no surrogates, nothing past
 * U+10FFFF): a part that can't continue valid UTF-8 is told at once, not when the text ends.
 */
private[server] final class Utf8Check:
  // Continuation bytes the current character still needs, and the range its next byte must be in
  private var need = 0
  private var low = 0x80
  private var high = 0xbf

  def reset(): Unit =
    need = 0
    low = 0x80
    high = 0xbf

  /** Whether the text so far, `bytes` added, is valid UTF-8 or the start of it. */
  def accepts(bytes: Array[Byte]): Boolean =
    var i = 0
    var valid = true
    while valid && i < bytes.length do
      val b = bytes(i) & 0xff
      if need == 0 then
        if b < 0x80 then ()
        else if b >= 0xc2 && b <= 0xdf then need = 1
        else if b >= 0xe0 && b <= 0xef then
          need = 2
          if b == 0xe0 then low = 0xa0 // overlong
          else if b == 0xed then high = 0x9f // surrogates
        else if b >= 0xf0 && b <= 0xf4 then
          need = 3
          if b == 0xf0 then low = 0x90 // overlong
          else if b == 0xf4 then high = 0x8f // past U+10FFFF
        else valid = false
      else if b < low || b > high then valid = false
      else
        need -= 1
        low = 0x80
        high = 0xbf
      i += 1
    valid

  /** Whether the text so far ends with a whole character. */
  def complete: Boolean = need == 0
