package rapier.flow

import rapier.ServerSentEvent

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8

/**
 * Reads a `text/event-stream` as the WHATWG HTML standard (§9.2.6) does, bytes in, events out: lines end at CRLF, LF
 * or CR; a blank line dispatches the event its fields built; `:` starts a comment; `data` lines are joined with `\n`;
 * an `id` with a NUL and a `retry` that is not digits are ignored, as are unknown fields and an event the stream ends
 * before dispatching. An event with no `data` is dispatched too when another field was given, so that a Rapier
 * server's events read back as they were sent. A line longer than `maxLine` bytes fails the stream. One per stream,
 * used by one thread at a time.
 */
private[rapier] final class EventParser(maxLine: Int = EventParser.DefaultMaxLine):
  private val line = ByteArrayOutputStream()
  private var afterCr = false
  private var data: java.lang.StringBuilder | Null = null
  private var event: String | Null = null
  private var id: String | Null = null
  private var retry: java.lang.Long | Null = null
  private var started = false // a field of the next event was read
  private var first = true // no byte read yet: a BOM there is skipped

  /** Reads `bytes`, passing each event they complete to `emit`. */
  def feed(bytes: ByteBuffer, emit: ServerSentEvent => Unit): Unit =
    while bytes.hasRemaining do
      val b = bytes.get()
      if b == '\n' && afterCr then afterCr = false
      else if b == '\n' || b == '\r' then
        afterCr = b == '\r'
        lineEnded(emit)
      else
        afterCr = false
        if line.size >= maxLine then throw IllegalStateException(s"an event stream line over $maxLine bytes")
        line.write(b)

  private def lineEnded(emit: ServerSentEvent => Unit): Unit =
    var text = line.toString(UTF_8)
    line.reset()
    if first then
      first = false
      if text.startsWith("\uFEFF") then text = text.substring(1)
    if text.isEmpty then dispatch(emit)
    else if text.charAt(0) != ':' then
      val colon = text.indexOf(':')
      val name = if colon < 0 then text else text.substring(0, colon)
      val value =
        if colon < 0 then ""
        else if colon + 1 < text.length && text.charAt(colon + 1) == ' ' then text.substring(colon + 2)
        else text.substring(colon + 1)
      name match
        case "data" =>
          val d = if data == null then java.lang.StringBuilder() else data.nn.append('\n')
          data = d.append(value)
          started = true
        case "event" =>
          event = value
          started = true
        case "id" if value.indexOf('\u0000') < 0 =>
          id = value
          started = true
        case "retry" if value.nonEmpty && value.length <= 18 && value.forall(c => c >= '0' && c <= '9') =>
          retry = java.lang.Long.valueOf(value)
          started = true
        case _ => ()

  private def dispatch(emit: ServerSentEvent => Unit): Unit =
    if started then
      val e = ServerSentEvent(
        Option(data).map(_.toString),
        Option(event).filter(_.nonEmpty),
        Option(id),
        Option(retry).map(_.longValue)
      )
      data = null
      event = null
      id = null
      retry = null
      started = false
      emit(e)

private[rapier] object EventParser:
  /** 16 MiB: no one line of a stream a client reads holds more. */
  val DefaultMaxLine: Int = 16 * 1024 * 1024
