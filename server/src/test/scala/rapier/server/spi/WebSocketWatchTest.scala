package rapier.server.spi

import java.nio.charset.StandardCharsets.UTF_8

class WebSocketWatchTest extends munit.FunSuite:
  // A client's frame, masked with a key of four different bytes unless told otherwise
  private def frame(opcode: Int, payload: Array[Byte], fin: Boolean = true, rsv: Int = 0, masked: Boolean = true) =
    val key = Array[Byte](0x12, 0x34, 0x56, 0x78)
    val n = payload.length
    val length =
      if n < 126 then Array(((if masked then 0x80 else 0) | n).toByte)
      else if n < 65536 then Array(((if masked then 0x80 else 0) | 126).toByte, (n >> 8).toByte, n.toByte)
      else Array(((if masked then 0x80 else 0) | 127).toByte) ++ (0 to 7).reverse.map(k => (n.toLong >> (8 * k)).toByte)
    val body = if masked then payload.indices.map(i => (payload(i) ^ key(i % 4)).toByte).toArray else payload
    Array(((if fin then 0x80 else 0) | rsv | opcode).toByte) ++ length ++
      (if masked then key else Array.emptyByteArray) ++ body
  private def text(s: String, fin: Boolean = true) = frame(1, s.getBytes(UTF_8), fin)
  private def close(code: Int, reason: Array[Byte] = Array()) =
    frame(8, Array((code >> 8).toByte, code.toByte) ++ reason)

  // Fed all at once, and a byte at a time: the same verdict
  private def verdict(text: Boolean, limit: Int, frames: Array[Byte]*): Option[(Int, String)] =
    val bytes = frames.flatten.toArray
    val whole = WebSocketWatch(text, limit).feed(bytes, 0, bytes.length)
    val watch = WebSocketWatch(text, limit)
    bytes.indices.foreach(i => watch.feed(bytes, i, 1))
    assertEquals(watch.broken, whole)
    Option(whole).map(b => (b.code, b.reason))

  private def code(frames: Array[Byte]*): Int = verdict(true, 1024, frames*).fold(0)(_._1)

  test("what keeps the rules passes: messages whole and in fragments, pings among them, every length encoding"):
    assertEquals(
      code(
        text("hello"),
        frame(9, "ping".getBytes),
        text("a", fin = false),
        frame(10, Array()),
        frame(0, "b".getBytes)
      ),
      0
    )
    assertEquals(verdict(false, 1 << 20, frame(2, Array.fill(70000)(1)), frame(2, Array.fill(300)(2))), None)
    assertEquals(code(text("x" * 1024)), 0, "a message of the limit's length")
    assertEquals(code(text("x" * 1000), text("y" * 1000)), 0, "messages each within the limit")
    assertEquals(code(text("caf\u00e9 \ud83d\ude00"), close(1000, "bye".getBytes)), 0)
    assertEquals(code(close(4999), text("anything after the close is not read", fin = false)), 0)

  test("protocol errors are 1002: reserved bits and opcodes, unmasked, control frames, broken fragmentation"):
    assertEquals(code(frame(1, "hi".getBytes, rsv = 0x40)), 1002)
    assertEquals(code(frame(1, "hi".getBytes, rsv = 0x10)), 1002)
    assertEquals(code(frame(3, Array())), 1002)
    assertEquals(code(frame(0xb, Array())), 1002)
    assertEquals(code(frame(1, "hi".getBytes, masked = false)), 1002)
    assertEquals(code(frame(9, Array(), fin = false)), 1002)
    assertEquals(code(frame(9, Array.fill(126)(0))), 1002)
    assertEquals(code(frame(0, "hi".getBytes)), 1002)
    assertEquals(code(text("a", fin = false), text("b")), 1002)

  test("closes: a one-byte payload or a code a client may not send is 1002, a reason not UTF-8 1007"):
    assertEquals(code(frame(8, Array(3))), 1002)
    for c <- List(0, 999, 1004, 1005, 1006, 1012, 1015, 2999, 5000) do assertEquals(code(close(c)), 1002, s"$c")
    for c <- List(1000, 1003, 1007, 1011, 3000) do assertEquals(code(close(c)), 0, s"$c")
    assertEquals(code(close(1000, Array(0xce, 0xba, 0xed, 0xa0, 0x80).map(_.toByte))), 1007)
    assertEquals(code(frame(8, Array())), 0, "a close with no code")

  test("a message of the wrong kind is 1003, one past the limit 1009 at the header that takes it there"):
    assertEquals(code(frame(2, Array(1))), 1003)
    assertEquals(verdict(false, 10, text("hi")).map(_._1), Some(1003))
    assertEquals(code(text("x" * 1025)), 1009)
    assertEquals(code(text("x" * 600, fin = false), frame(0, Array.fill(600)('x'))), 1009)
    // Told at the header: the payload never needs to arrive
    val header = frame(1, Array.fill(1 << 20)('x')).take(14)
    assertEquals(Option(WebSocketWatch(true, 1024).feed(header, 0, header.length)).map(_.code), Some(1009))

  test("text that can't be UTF-8 is 1007 at its first wrong byte, within a frame still arriving"):
    val bad = frame(1, "valid".getBytes ++ Array(0xed, 0xa0, 0x80).map(_.toByte) ++ "more".getBytes)
    val watch = WebSocketWatch(true, 1024)
    assertEquals(watch.feed(bad, 0, bad.length - 5), watch.broken)
    assertEquals(Option(watch.broken).map(_.code), Some(1007), "told before the frame's end")
    assertEquals(code(text("ok", fin = false), frame(0, Array(0xc0.toByte))), 1007)
    assertEquals(code(frame(1, Array(0xce.toByte))), 1007, "a character the message ends inside")
    // A character split across fragments is whole
    assertEquals(code(frame(1, Array(0xce.toByte), fin = false), frame(0, Array(0xba.toByte))), 0)

  test("the server's close frame carries the code and at most 123 bytes of reason"):
    val f = WebSocketWatch.closeFrame(1009, "r" * 200)
    assertEquals(f.length, 127)
    assertEquals((f(0) & 0xff, f(1) & 0xff, ((f(2) & 0xff) << 8) | (f(3) & 0xff)), (0x88, 125, 1009))

  test("after a breach, frames are followed to the client's close, unmasked ones too"):
    val watch = WebSocketWatch(true, 1024)
    val bytes = frame(1, "x".getBytes, rsv = 0x40) ++ frame(1, "a".getBytes, masked = false) ++
      frame(2, Array.fill(3000)(1)) ++ frame(9, "p".getBytes)
    watch.feed(bytes, 0, bytes.length)
    assertEquals(Option(watch.broken).map(_.code), Some(1002))
    assert(!watch.clientClosed)
    val closing = close(1002)
    watch.feed(closing, 0, closing.length)
    assert(watch.clientClosed)
    assertEquals(watch.broken.nn.reason, "A reserved bit is set.", "the first breach is the one told")

  test("the bytes before the frame that broke a rule are told, for a server to read them first"):
    val good = text("hello") ++ frame(9, "p".getBytes)
    val bad = frame(1, "x".getBytes, rsv = 0x20)
    val watch = WebSocketWatch(true, 1024)
    watch.feed(good, 0, 3)
    assertEquals(watch.keptRules, 3L)
    val rest = good.drop(3) ++ bad ++ text("after")
    watch.feed(rest, 0, rest.length)
    assertEquals(watch.keptRules, good.length.toLong)
    // UTF-8 broken within a frame: the frame's start
    val w2 = WebSocketWatch(true, 1024)
    val utf = good ++ frame(1, Array(0x61, 0xff, 0x62).map(_.toByte))
    w2.feed(utf, 0, utf.length)
    assertEquals((w2.broken.nn.code, w2.keptRules), (1007, good.length.toLong))

  test("long text is checked wherever its wrong byte falls, and wherever the reads cut it"):
    val ascii = ("abcdefgh" * 40).getBytes(UTF_8)
    for at <- List(0, 1, 7, 8, 9, 100, 317) do
      val bad = ascii.clone()
      bad(at) = 0xff.toByte
      assertEquals(code(frame(1, bad)), 1007, s"at $at")
      val split = ascii.clone()
      split(at) = 0xc3.toByte
      split(at + 1) = 0xa9.toByte
      assertEquals(code(frame(1, split)), 0, s"a character at $at")
      assertEquals(code(frame(1, ascii.take(at) :+ 0xc3.toByte)), 1007, s"cut inside a character at $at")
