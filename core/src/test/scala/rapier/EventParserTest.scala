package rapier

import rapier.flow.EventParser

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8

class EventParserTest extends munit.FunSuite:
  /** The events `chunks` make, fed one after the other to one parser. */
  private def parse(chunks: String*): List[ServerSentEvent] =
    val parser = EventParser(maxLine = 64)
    val events = List.newBuilder[ServerSentEvent]
    for c <- chunks do parser.feed(ByteBuffer.wrap(c.getBytes(UTF_8)), events += _)
    events.result()

  test("what a server writes reads back, event by event"):
    val sent = List(
      ServerSentEvent(data = Some("one\ntwo"), event = Some("e"), id = Some("7"), retry = Some(10)),
      ServerSentEvent(data = Some("")),
      ServerSentEvent(id = Some("8"))
    )
    assertEquals(parse(sent.map(e => String(e.encode, UTF_8))*), sent)

  test("lines end at CRLF, LF or CR, split anywhere between chunks; a BOM at the start is skipped"):
    val expected = List(ServerSentEvent.data("a\nb"), ServerSentEvent.data("c"))
    assertEquals(parse("\uFEFFdata: a\r\ndata: b\r\n\r\ndata:c\r\r"), expected)
    assertEquals(parse("\uFEFFdata: a\r", "\ndata: b\n", "\n", "data:c\r", "\r"), expected)
    assertEquals(parse("da", "ta: a\ndata", ": b\n\ndata: c\n\n"), expected)

  test("comments, unknown fields, an id with NUL and a retry not of digits are ignored"):
    assertEquals(
      parse(": keep-alive\n\n", "foo: bar\nid: a\u0000b\nretry: 1s\ndata\n\n"),
      List(ServerSentEvent(data = Some("")))
    )
    assertEquals(parse("event\nretry: 15\n\n"), List(ServerSentEvent(retry = Some(15))))

  test("an event the stream ends before dispatching is dropped"):
    assertEquals(parse("data: whole\n\ndata: cut"), List(ServerSentEvent.data("whole")))

  test("a line longer than the limit fails, rather than growing"):
    intercept[IllegalStateException](parse("data: " + "x" * 100))
