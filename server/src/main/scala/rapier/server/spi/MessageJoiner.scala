package rapier.server.spi

import rapier.model.Utf8Check

/**
 * A WebSocket message joined from its frames' payloads, for a backend whose server hands over frames rather than
 * messages: within the endpoint's `limit` (1009 past it, the parts dropped), a text message's UTF-8 checked frame by
 * frame, refused at the first frame that can't continue it (1007). `whole` gets each message after its last frame,
 * `refuse` the close of one that can't be taken. Used on the connection's loop only.
 *
 * The payloads are appended to one array that doubles as it fills, so a message sent in 1-byte fragments costs a copy
 * per byte and at most twice its size, never an object per fragment; a message of one frame is its payload, uncopied.
 */
final class MessageJoiner(limit: Int, whole: (Array[Byte], Boolean) => Unit, refuse: (Int, String) => Unit):
  // The message so far, in its first `size` bytes; null between messages
  private var joined: Array[Byte] | Null = null
  private var size = 0
  private var isText = false
  private val utf8 = Utf8Check()

  /** Whether the message being joined is text: what a continuation frame carries. */
  def text: Boolean = isText

  /** Whether a message is begun and not ended: its next frame is wanted whatever else is. */
  def joining: Boolean = joined != null

  /**
   * Adds a frame's payload, which is the joiner's from now on; `text` counts for a message's first frame, `last` ends
   * the message.
   */
  def add(payload: Array[Byte], text: Boolean, last: Boolean): Unit =
    val first = joined == null
    if first then
      isText = text
      utf8.reset()
    if size.toLong + payload.length > limit then
      drop()
      refuse(1009, MessageJoiner.tooLong(limit))
    else if isText && !(utf8.accepts(payload) && (!last || utf8.complete)) then
      drop()
      refuse(1007, MessageJoiner.NotUtf8)
    else if first && last then whole(payload, isText)
    else
      append(payload)
      if last then
        val all = joined.nn
        val message = if all.length == size then all else java.util.Arrays.copyOf(all, size)
        drop()
        whole(message, isText)

  private def append(payload: Array[Byte]): Unit =
    val into = joined
    if into == null then joined = payload
    else if size + payload.length <= into.nn.length then System.arraycopy(payload, 0, into.nn, size, payload.length)
    else
      val grown = math.min(limit.toLong, math.max(size.toLong + payload.length, 2L * into.nn.length)).toInt
      val bigger = java.util.Arrays.copyOf(into.nn, grown)
      System.arraycopy(payload, 0, bigger, size, payload.length)
      joined = bigger
    size += payload.length

  private def drop(): Unit =
    joined = null
    size = 0

object MessageJoiner:
  /** The close reason of a text message that is not UTF-8 (1007). */
  val NotUtf8 = "A text message is not valid UTF-8."

  /** The close reason of a message past the limit (1009). */
  def tooLong(limit: Int): String = s"A message is longer than this WebSocket's limit of $limit bytes."
