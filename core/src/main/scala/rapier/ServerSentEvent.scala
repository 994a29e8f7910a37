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

  /**
   * The event as the stream carries it, ending with the blank line that dispatches it. Written once into a builder
   * sized for it, its lines found by a scan, and copied byte for byte when it is ASCII (a stamp, a JSON document of
   * ASCII): an event costs its builder and its bytes.
   */
  def encode: Array[Byte] =
    val b = java.lang.StringBuilder(ServerSentEvent.sizeOf(this))
    if event.isDefined then b.append("event: ").append(event.get).append('\n')
    if id.isDefined then b.append("id: ").append(id.get).append('\n')
    if retry.isDefined then b.append("retry: ").append(retry.get).append('\n')
    if data.isDefined then ServerSentEvent.appendData(b, data.get)
    b.append('\n')
    ServerSentEvent.bytes(b)

object ServerSentEvent:
  /** An event of data alone. */
  def data(text: String): ServerSentEvent = ServerSentEvent(data = Some(text))

  /** The comment sent to keep an idle stream's connection open: clients ignore it. */
  val KeepAlive: Array[Byte] = ":\n\n".getBytes(StandardCharsets.US_ASCII)

  private def isOneLine(s: String): Boolean = s.indexOf('\n') < 0 && s.indexOf('\r') < 0

  /** What an event's text takes, if no line of its data is empty: the builder's first size. */
  private def sizeOf(e: ServerSentEvent): Int =
    def field(value: Option[String], name: Int) = if value.isDefined then value.get.length + name + 3 else 0
    field(e.event, 5) + field(e.id, 2) + (if e.retry.isDefined then 28 else 0) + field(e.data, 4) + 1

  /** `text`'s lines, split at CRLF, LF or CR as the stream's parser splits them, each a `data:` field. */
  private def appendData(b: java.lang.StringBuilder, text: String): Unit =
    var start = 0
    var i = 0
    while i < text.length do
      val c = text.charAt(i)
      if c == '\n' || c == '\r' then
        b.append("data: ").append(text, start, i).append('\n')
        if c == '\r' && i + 1 < text.length && text.charAt(i + 1) == '\n' then i += 1
        start = i + 1
      i += 1
    b.append("data: ").append(text, start, text.length).append('\n')

  /** The builder's text in UTF-8: copied char for char while it is ASCII, encoded otherwise. */
  private def bytes(b: java.lang.StringBuilder): Array[Byte] =
    val out = new Array[Byte](b.length)
    var i = 0
    while i < out.length && b.charAt(i) < 0x80 do
      out(i) = b.charAt(i).toByte
      i += 1
    if i == out.length then out else b.toString.getBytes(StandardCharsets.UTF_8)
