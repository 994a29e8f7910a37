package rapier.http4s.internal

import com.twitter.hpack.Encoder
import rapier.server.Http2
import rapier.server.spi.{Http2Frames, Http2Stalls}

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.US_ASCII

class Http2WatchTest extends munit.FunSuite:
  private def frame(kind: Int, flags: Int, stream: Int, payload: Array[Byte]): Array[Byte] =
    val f = new Array[Byte](9 + payload.length)
    f(0) = (payload.length >>> 16).toByte
    f(1) = (payload.length >>> 8).toByte
    f(2) = payload.length.toByte
    f(3) = kind.toByte
    f(4) = flags.toByte
    f(5) = (stream >>> 24).toByte
    f(6) = (stream >>> 16).toByte
    f(7) = (stream >>> 8).toByte
    f(8) = stream.toByte
    System.arraycopy(payload, 0, f, 9, payload.length)
    f

  // An encoder per block: its dynamic table starts empty, as a new watch's decoder does
  private def headers(stream: Int, authority: String, endStream: Boolean): Array[Byte] =
    val block = ByteArrayOutputStream()
    val encoder = Encoder(4096)
    for (n, v) <- List(":method" -> "POST", ":scheme" -> "http", ":authority" -> authority, ":path" -> "/echo") do
      encoder.encodeHeader(block, n.getBytes(US_ASCII), v.getBytes(US_ASCII), false)
    frame(1, 0x4 | (if endStream then 1 else 0), stream, block.toByteArray)

  private def data(stream: Int, size: Int, end: Boolean) = frame(0, if end then 1 else 0, stream, Array.fill(size)('d'))

  // Fed in pieces of the given sizes, in turn; what Ember was given.
  private def through(watch: Http2Watch, bytes: Array[Byte], pieces: Iterator[Int]): Array[Byte] =
    val out = ByteArrayOutputStream()
    var at = 0
    while at < bytes.length do
      val n = math.min(pieces.next(), bytes.length - at)
      val chunk = java.util.Arrays.copyOfRange(bytes, at, at + n)
      out.write(watch.inbound(chunk, 0, n).toArray)
      at += n
    out.toByteArray

  private val connection: Array[Byte] =
    val all = ByteArrayOutputStream()
    all.write(frame(4, 0, 0, Array[Byte](0, 4, 0, 1, 0, 0))) // SETTINGS_INITIAL_WINDOW_SIZE
    all.write(headers(1, "example.org:8443", endStream = false))
    for i <- 1 to 5 do all.write(data(1, 16_384, end = i == 5))
    all.write(headers(3, "example.org", endStream = true))
    all.write(frame(8, 0, 0, Array[Byte](0, 1, 0, 0))) // WINDOW_UPDATE
    all.toByteArray

  test("frames pass unchanged whatever pieces they come in, the :authority of each stream read"):
    for sizes <- List(List(connection.length), List(1), List(7), List(9), List(10), List(3, 11, 4000, 17)) do
      val watch = Http2Watch(Http2(), 16_384, 0L, Http2Stalls(1000))
      val passed = through(watch, connection, Iterator.continually(sizes).flatten)
      assert(java.util.Arrays.equals(passed, connection), s"pieces of $sizes")
      assertEquals(watch.authorityOf(1), "example.org:8443")
      assertEquals(watch.authorityOf(3), "example.org")
      assertEquals(watch.cut, -1)

  test("a client's resets past the limit in its window, and CONTINUATIONs past 16 in a block, end the connection"):
    val resets = Http2Watch(Http2(maxResetsPerWindow = 3), 16_384, 0L, Http2Stalls(1000))
    val opened = ByteArrayOutputStream()
    for stream <- List(1, 3, 5, 7) do
      opened.write(headers(stream, "h", endStream = true))
      opened.write(Http2Frames.rstStream(stream, Http2Frames.Cancel))
    val bytes = opened.toByteArray
    resets.inbound(bytes, 0, bytes.length)
    assertEquals(resets.cut, Http2Frames.EnhanceYourCalm)
    val continued = Http2Watch(Http2(), 16_384, 0L, Http2Stalls(1000))
    val block = ByteArrayOutputStream()
    block.write(frame(1, 0, 1, Array[Byte]()))
    for _ <- 1 to 17 do block.write(frame(9, 0, 1, Array[Byte]()))
    continued.inbound(block.toByteArray, 0, block.size)
    assertEquals(continued.cut, Http2Frames.EnhanceYourCalm)

  test("a stream past the limit is refused: REFUSED_STREAM to its client, CANCEL to Ember after its HEADERS"):
    val watch = Http2Watch(Http2(maxConcurrentStreams = 1), 16_384, 0L, Http2Stalls(1000))
    val two = headers(1, "h", endStream = true) ++ headers(3, "h", endStream = true)
    val passed = watch.inbound(two, 0, two.length).toArray
    assert(java.util.Arrays.equals(passed, two ++ Http2Frames.rstStream(3, Http2Frames.Cancel)))
    assert(java.util.Arrays.equals(watch.owedToClient(written = false), Http2Frames.rstStream(3, 7)))
    assert(watch.wasRefused(3) && !watch.wasRefused(1))

  test("a client opening streams past the limit, never sending their bodies, is cut before what it is owed grows"):
    val watch = Http2Watch(Http2(maxConcurrentStreams = 1), 16_384, 0L, Http2Stalls(1000))
    val streams = ByteArrayOutputStream()
    // Each an HEADERS without END_STREAM: Ember's CANCEL is put in, but the stream stays left out until its end
    for i <- 0 to 10_001 do streams.write(headers(1 + 2 * i, "h", endStream = false))
    val bytes = streams.toByteArray
    watch.inbound(bytes, 0, bytes.length)
    assertEquals(watch.cut, Http2Frames.EnhanceYourCalm)
    assertEquals(watch.authorityOf(1), "h")
    assertEquals(watch.authorityOf(3), null)

  test("Ember's connection WINDOW_UPDATE restores its own window, not the client's initial one"):
    val watch = Http2Watch(Http2(), 16_384, 0L, Http2Stalls(1000))
    val settings = frame(4, 0, 0, Array[Byte](0, 4, 1, 0, 0, 0)) // the client's initial window: 16 MiB
    watch.inbound(settings, 0, settings.length)
    val update = frame(8, 0, 0, Array[Byte](1, 0, 0, 0)) // 16 MiB less nothing read: what Ember sends
    val sent = watch.outbound(update, 0, update.length)
    assert(sent != null)
    assertEquals(sent.nn.drop(9).toList, List[Byte](0, 0, 0xff.toByte, 0xff.toByte))

  test("a response that ends before its request's body: the client told to stop, Ember that the stream is done"):
    val watch = Http2Watch(Http2(), 16_384, 0L, Http2Stalls(1000))
    val open = headers(1, "h", endStream = false)
    watch.inbound(open, 0, open.length)
    val answer = frame(0, 1, 1, Array[Byte]('k'))
    assertEquals(watch.outbound(answer, 0, answer.length), null)
    assert(java.util.Arrays.equals(watch.owedToClient(written = true), Http2Frames.rstStream(1, 0)))
    // What the client still sends on it is left out, its bytes given back to the connection's window
    val late = data(1, 100, end = false) ++ data(1, 0, end = true)
    assertEquals(watch.inbound(late, 0, late.length).toList, Http2Frames.rstStream(1, Http2Frames.Cancel).toList)
    assert(java.util.Arrays.equals(watch.owedToClient(written = false), Http2Frames.windowUpdate(0, 100)))
