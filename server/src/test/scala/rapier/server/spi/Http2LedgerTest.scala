package rapier.server.spi

import rapier.server.spi.Http2Frames.*

class Http2LedgerTest extends munit.FunSuite:
  private val second = 1_000_000_000L

  // A frame read whole, as a watch's reader hands it over: its header and, for SETTINGS and WINDOW_UPDATE, its payload
  private def frame(kind: Int, flags: Int, stream: Int, payload: Array[Byte] = Array.emptyByteArray): Reader =
    val bytes = new Array[Byte](9 + payload.length)
    bytes(0) = (payload.length >>> 16).toByte
    bytes(1) = (payload.length >>> 8).toByte
    bytes(2) = payload.length.toByte
    bytes(3) = kind.toByte
    bytes(4) = flags.toByte
    putInt(bytes, 5, stream)
    System.arraycopy(payload, 0, bytes, 9, payload.length)
    val reader = Reader(keeps = true)
    reader.feed(bytes, 0, 9)
    reader.feed(bytes, 9, bytes.length)
    reader

  private def data(stream: Int, length: Int, end: Boolean = false): Reader =
    val reader = Reader(keeps = false)
    val head = new Array[Byte](9)
    head(1) = (length >>> 8).toByte
    head(2) = length.toByte
    head(3) = Data.toByte
    head(4) = (if end then EndStream else 0).toByte
    putInt(head, 5, stream)
    reader.feed(head, 0, 9)
    reader.feed(new Array[Byte](length), 0, length)
    reader

  private def initialWindow(size: Int): Reader =
    val payload = new Array[Byte](6)
    payload(1) = 4
    putInt(payload, 2, size)
    frame(Settings, 0, 0, payload)

  private def windowUpdate(stream: Int, increment: Int): Reader =
    val payload = new Array[Byte](4)
    putInt(payload, 0, increment)
    frame(WindowUpdate, 0, stream, payload)

  // Opens `streams` whose answers have begun, on a ledger whose client gave no window
  private def stalledLedger(streams: Seq[Int], stalls: Http2Stalls = Http2Stalls(1000)): Http2Ledger =
    val ledger = Http2Ledger(10 * second, stalls)
    ledger.client(initialWindow(0))
    for s <- streams do
      ledger.client(frame(Headers, EndStream | EndHeaders, s))
      ledger.server(frame(Headers, EndHeaders, s))
    ledger

  private def checked(ledger: Http2Ledger, at: Long): List[Int] =
    val reset = List.newBuilder[Int]
    ledger.check(at, s => reset += s)
    reset.result()

  test("an answer waiting for a window it never gets is reset once it has waited the idle timeout"):
    val ledger = stalledLedger(List(1, 3))
    assertEquals(checked(ledger, 1 * second), Nil)
    assertEquals(checked(ledger, 5 * second), Nil)
    assertEquals(checked(ledger, 11 * second).sorted, List(1, 3))
    assertEquals(ledger.open, 0)
    assertEquals(checked(ledger, 30 * second), Nil, "reset once")

  test("an answer the client takes 16 KiB of per idle timeout is not stalled; a trickle is"):
    val ledger = stalledLedger(List(1, 3))
    checked(ledger, 1 * second)
    for t <- 2 to 40 do
      // Stream 1's client opens its window 2 KiB a second, stream 3's one byte a second
      ledger.client(windowUpdate(1, 2048))
      ledger.server(data(1, 2048))
      ledger.client(windowUpdate(3, 1))
      ledger.server(data(3, 1))
      val reset = checked(ledger, t * second)
      if t < 11 then assertEquals(reset, Nil, s"at $t s")
      else if t == 11 then assertEquals(reset, List(3), s"at $t s")
      else assertEquals(reset, Nil, s"at $t s")
    assertEquals(ledger.open, 1)

  test("an open window, an ended answer, a client's reset: nothing to reset"):
    val ledger = Http2Ledger(10 * second, Http2Stalls(1000))
    ledger.client(frame(Headers, EndStream | EndHeaders, 1))
    ledger.server(frame(Headers, EndHeaders, 1))
    ledger.client(frame(Headers, EndStream | EndHeaders, 3))
    ledger.server(frame(Headers, EndHeaders, 3))
    ledger.server(data(3, 100, end = true))
    ledger.client(frame(Headers, EndStream | EndHeaders, 5))
    ledger.server(frame(Headers, EndHeaders, 5))
    ledger.client(frame(RstStream, 0, 5, new Array[Byte](4)))
    for t <- 1 to 30 do assertEquals(checked(ledger, t * second), Nil)
    assertEquals(ledger.open, 1, "stream 1, its window the default 65,535")

  test("a shut connection window holds every answer; SETTINGS moves every stream's window by the difference"):
    val ledger = Http2Ledger(10 * second, Http2Stalls(1000))
    ledger.client(frame(Headers, EndStream | EndHeaders, 1))
    ledger.server(frame(Headers, EndHeaders, 1))
    ledger.server(data(1, 16_384))
    ledger.server(data(1, 16_384))
    ledger.server(data(1, 16_384))
    ledger.server(data(1, 16_383))
    // The connection's 65,535 are spent; the stream's window, raised, does not help
    ledger.client(windowUpdate(1, 100_000))
    checked(ledger, 1 * second)
    assertEquals(checked(ledger, 11 * second), List(1))
    val lowered = Http2Ledger(10 * second, Http2Stalls(1000))
    lowered.client(frame(Headers, EndStream | EndHeaders, 1))
    lowered.server(frame(Headers, EndHeaders, 1))
    lowered.client(initialWindow(100))
    checked(lowered, 1 * second)
    assertEquals(checked(lowered, 11 * second), List(1))

  test("past the server's bound, the longest stalled answers are reset, whichever connection holds them"):
    val stalls = Http2Stalls(3)
    val first = stalledLedger(1 to 5 by 2, stalls)
    assertEquals(checked(first, 1 * second), Nil, "counted as soon as seen waiting")
    assertEquals(stalls.held, 3)
    val second_ = stalledLedger(1 to 7 by 2, stalls)
    // The second connection's four make seven: it resets its own longest stalled until three are held
    assertEquals(checked(second_, 2 * second).size, 4)
    assertEquals(stalls.held, 3)
    first.close()
    assertEquals(stalls.held, 0)

  test("idle: no stream open and no HEADERS or DATA for the idle timeout, pings and window updates or not"):
    val ledger = Http2Ledger(10 * second, Http2Stalls(1000))
    assert(!ledger.idle(0))
    assert(!ledger.idle(5 * second))
    ledger.client(frame(Ping, 0, 0, new Array[Byte](8)))
    ledger.client(windowUpdate(0, 1))
    assert(ledger.idle(10 * second))
    ledger.client(frame(Headers, EndStream | EndHeaders, 1))
    assert(!ledger.idle(11 * second))
    assert(!ledger.idle(30 * second), "a stream is open: its request is being served")
    ledger.server(frame(Headers, EndStream | EndHeaders, 1))
    assert(!ledger.idle(31 * second))
    assert(!ledger.idle(40 * second))
    assert(ledger.idle(41 * second))

  test("the table keeps thousands of streams through growth and removal"):
    val ledger = Http2Ledger(10 * second, Http2Stalls(1000))
    val ids = (1 to 20_001 by 2).toList
    for s <- ids do ledger.client(frame(Headers, EndStream | EndHeaders, s))
    assertEquals(ledger.open, ids.size)
    for s <- ids if s % 3 == 0 do ledger.server(frame(RstStream, 0, s, new Array[Byte](4)))
    assertEquals(ledger.open, ids.count(_ % 3 != 0))
    for s <- ids if s % 3 != 0 do ledger.server(frame(Headers, EndStream | EndHeaders, s))
    assertEquals(ledger.open, 0)
