package rapier.server.spi

import rapier.model.Utf8Check

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
      parts = java.util.ArrayList(1)
      isText = text
      utf8.reset()
    if size.toLong + payload.length > limit then
      drop()
      refuse(1009, MessageJoiner.tooLong(limit))
    else if isText && !(utf8.accepts(payload) && (!last || utf8.complete)) then
      drop()
      refuse(1007, "A text message is not valid UTF-8.")
    else
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
