package rapier

import java.nio.charset.StandardCharsets

/**
 * One event of a `text/event-stream` response (the WHATWG HTML standard, §9.2): its `data` (lines as they are: each
 * is sent as a `data:` field of its own, and the client joins them with `\n`), its `event` type, its `id` (which the
 * client sends back as `Last-Event-ID` when it reconnects) and the `retry` delay in milliseconds it should wait before
 * reconnecting. A field that is `None` is not sent. `event` and `id` are one line each: a line break in either is
 * refused here, as it would start another field.
 */
final case class ServerSentEvent(
    data: Option[String] = None,
    event: Option[String] = None,
    id: Option[String] = None,
    retry: Option[Long] = None
):
  require(event.forall(ServerSentEvent.isOneLine), s"an event type is one line: ${event.get.take(40)}")
  require(
    id.forall(i => ServerSentEvent.isOneLine(i) && i.indexOf('\u0000') < 0),
    "an event id is one line, without NUL"
  )
  require(retry.forall(_ >= 0), "retry is a delay in milliseconds, not negative")

  /** The event as the stream carries it, ending with the blank line that dispatches it. */
  def encode: Array[Byte] =
    val b = StringBuilder()
    event.foreach(e => b.append("event: ").append(e).append('\n'))
    id.foreach(i => b.append("id: ").append(i).append('\n'))
    retry.foreach(r => b.append("retry: ").append(r).append('\n'))
    data.foreach(ServerSentEvent.lines(_).foreach(line => b.append("data: ").append(line).append('\n')))
    b.append('\n')
    b.toString.getBytes(StandardCharsets.UTF_8)

object ServerSentEvent:
  /** An event of data alone. */
  def data(text: String): ServerSentEvent = ServerSentEvent(data = Some(text))

  /** The comment sent to keep an idle stream's connection open: clients ignore it. */
  val KeepAlive: Array[Byte] = ":\n\n".getBytes(StandardCharsets.US_ASCII)

  private def isOneLine(s: String): Boolean = s.indexOf('\n') < 0 && s.indexOf('\r') < 0

  /** `text`'s lines, split at CRLF, LF or CR, as the stream's parser splits them. */
  private def lines(text: String): Iterator[String] = text.split("\r\n|\r|\n", -1).iterator
