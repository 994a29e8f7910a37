package rapier.server.spi

/**
 * Whole messages a [[WebSocketChannel]] read before its relay asked for them, and the connection's end behind them. A
 * client's close (RFC 6455 §5.5.1), or its leaving, ends what it sends, not what it has sent: once the end is known
 * ([[endAfter]]) the relay sends nothing more ([[WebSocketRelay.closing]]), is still handed each message held as it
 * asks ([[serve]]), then, at its next ask, hears of the end; a relay that stops asking hears of it after
 * [[HeldMessages.GraceMillis]]. Used on the connection's loop only.
 */
final class HeldMessages(relay: WebSocketRelay):
  private val messages = java.util.ArrayDeque[HeldMessages.Message]()
  private var heldBytes = 0L
  private var ending = false
  private var over = false
  // Cancels the grace's timer, once armed
  private var cancelGrace: Runnable | Null = null

  /** The bytes of the messages held. */
  def bytes: Long = heldBytes

  /** Whether a message held, or the end, answers the relay's next ask: the channel need not read for it. */
  def answers: Boolean = !messages.isEmpty || (ending && !over)

  /** Whether the relay has heard of the end: nothing more is read for it. */
  def ended: Boolean = over

  /** Holds a whole message until the relay asks for it; dropped once the relay has heard of the end. */
  def add(bytes: Array[Byte], text: Boolean): Unit =
    if !over then
      messages.add(HeldMessages.Message(bytes, text))
      heldBytes += bytes.length

  /**
   * Answers the relay's ask ([[answers]]): the first message held, or, after the last, the end. The end waits for
   * the ask after the last message, not the last message itself: a pipe is ended with its connection, and would be
   * ended while it still handles its last message.
   */
  def serve(): Unit =
    val message = messages.poll()
    if message != null then
      heldBytes -= message.bytes.length
      relay.received(message.bytes, message.text)
    else if ending then end()

  /**
   * No message comes after those held: the relay hears of the end at once if none is, otherwise once it has taken
   * them, or when the timer `schedule` arms fires (it takes a delay in milliseconds and a task, and gives back the
   * timer's cancel).
   */
  def endAfter(schedule: (Long, Runnable) => Runnable): Unit =
    if !ending && !over then
      ending = true
      if messages.isEmpty then end()
      else
        relay.closing()
        cancelGrace = schedule(HeldMessages.GraceMillis, () => end())

  /** The relay hears of the end now; what is held is dropped. */
  def end(): Unit =
    if !over then
      over = true
      messages.clear()
      heldBytes = 0L
      val cancel = cancelGrace
      cancelGrace = null
      if cancel != null then cancel.nn.run()
      relay.ended()

object HeldMessages:
  /** How long a relay has, after the client's close, to take the messages read before it. */
  val GraceMillis = 5000L

  private final class Message(val bytes: Array[Byte], val text: Boolean)
