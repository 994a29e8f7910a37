package rapier.testkit

import rapier.server.spi.{FramingGuard, RefusalMarker}
import rapier.server.spi.RequestSyntax.Invalid

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets

/** The framing guard on the kit's corpus: each malformed request refused, each legal one passed on, in any reads. */
class FramingGuardTest extends munit.FunSuite:
  private val marker = RefusalMarker.random()

  /** What the guard passes on of `request` read in pieces of `piece` bytes, and its refusal's status (0 for none). */
  private def guarded(request: String, piece: Int, obsTextAsUtf8: Boolean = false): (String, Int) =
    val (text, refusal) = refused(request, piece, obsTextAsUtf8)
    (text, if refusal == null then 0 else refusal.nn.status.code)

  /** What the guard passes on of `request` read in pieces of `piece` bytes, and its refusal (null for none). */
  private def refused(request: String, piece: Int, obsTextAsUtf8: Boolean = false): (String, Invalid | Null) =
    val guard = FramingGuard(8192, 8192, marker, obsTextAsUtf8)
    val passed = ByteArrayOutputStream()
    val out: FramingGuard.Out = (bytes, offset, length) => passed.write(bytes, offset, length)
    val bytes = request.getBytes(StandardCharsets.ISO_8859_1)
    var at = 0
    while at < bytes.length do
      val n = math.min(piece, bytes.length - at)
      guard.feed(bytes, at, n, out)
      at += n
    val text = passed.toString(StandardCharsets.ISO_8859_1)
    val marked = text.linesIterator.collectFirst {
      case line if line.startsWith(RefusalMarker.Field + ":") =>
        marker.refusal(line.drop(RefusalMarker.Field.length + 2))
    }
    (text, marked.flatMap(Option(_)).getOrElse(guard.failed))

  for c <- MalformedRequests.all; piece <- List(1, 7, 1 << 16) do
    test(s"refused in reads of $piece: ${c.name}"):
      val refusal = refused(c.request, piece)._2
      assertEquals(Option(refusal).map(_.nn.status.code), Some(c.status))
      assert(MalformedRequests.sameWords(refusal.nn.message, c.problem.message), refusal.nn.message)

  for l <- MalformedRequests.legal ++ MalformedRequests.tolerated; piece <- List(1, 1 << 16) do
    test(s"passed on in reads of $piece: ${l.name}"):
      val (text, status) = guarded(l.request, piece)
      assertEquals(status, 0)
      assert(text.startsWith("GET") || text.startsWith("POST"), text)

  test("a chunked body goes on re-framed, without extensions or trailers"):
    val request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "3;a=b\r\nabc\r\n00A ;x\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"
    val expected = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "3\r\nabc\r\na\r\n0123456789\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"
    for piece <- List(1, 5, 1 << 16) do assertEquals(guarded(request, piece), (expected, 0))

  test("a chunked coding a lenient parser might not read goes on spelled `chunked`; the rest of the head as it came"):
    val body = "3\r\nabc\r\n0\r\n\r\n"
    for coding <- List(", chunked", ",,chunked", "chunked ,") do
      val (text, status) =
        guarded(s"POST /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: $coding\r\nX-A: 1\r\n\r\n$body", 4)
      assertEquals(
        (text, status),
        (s"POST /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n$body", 0)
      )

  test("obs-text goes on as it came, or as UTF-8 for a parser that reads values so"):
    val request = "GET /e HTTP/1.1\r\nHost: x\r\nX-A: caf\u00e9 \u00ff\r\n\r\n"
    assertEquals(guarded(request, 3), (request, 0))
    val (utf8, status) = guarded(request, 3, obsTextAsUtf8 = true)
    assertEquals(status, 0)
    val bytes = utf8.getBytes(StandardCharsets.ISO_8859_1)
    assertEquals(String(bytes, StandardCharsets.UTF_8), request)

  test("after a refusal, nothing more is passed on"):
    val (text, status) =
      guarded("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\nHost: x\r\n\r\nGET /c HTTP/1.1\r\n", 3)
    assertEquals(status, 400)
    assert(text.startsWith("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\n"), text)
    assert(!text.contains("/b") && !text.contains("/c"), text)

  test("a request that asks to switch protocols holds what follows until the server answers"):
    val guard = FramingGuard(8192, 8192, marker)
    val passed = ByteArrayOutputStream()
    val out: FramingGuard.Out = (bytes, offset, length) => passed.write(bytes, offset, length)
    val head = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    val frame = Array[Byte](0x81.toByte, 0x80.toByte, 1, 2, 3, 4)
    val bytes = head.getBytes(StandardCharsets.ISO_8859_1) ++ frame
    guard.feed(bytes, 0, bytes.length, out)
    assertEquals(passed.size, head.length)
    assert(guard.awaitingVerdict)
    guard.responded(switched = true, out)
    assertEquals(passed.toByteArray.drop(head.length).toList, frame.toList)
    assert(guard.passing)

  test("a request that asks to switch protocols and is answered otherwise is followed by a checked head"):
    val guard = FramingGuard(8192, 8192, marker)
    val passed = ByteArrayOutputStream()
    val out: FramingGuard.Out = (bytes, offset, length) => passed.write(bytes, offset, length)
    val bytes = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\nGET /x HTTP/1.1\nHost: x\r\n\r\n"
      .getBytes(StandardCharsets.ISO_8859_1)
    guard.feed(bytes, 0, bytes.length, out)
    guard.responded(switched = false, out)
    assert(guard.closed)

  test("a marker with another server's token is not believed"):
    val other = RefusalMarker.random()
    val line = String(other.request(rapier.server.spi.RequestSyntax.MissingHost), StandardCharsets.ISO_8859_1)
    val value = line.linesIterator.find(_.startsWith(RefusalMarker.Field)).get.drop(RefusalMarker.Field.length + 2)
    assertEquals(marker.refusal(value), null)
    assertEquals(other.refusal(value).nn.status.code, 400)
