package rapier.server.compression

import rapier.server.spi.{BodyReceiver, BodySource, BodyTooLargeException, RequestBodyException}

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.{CRC32, Deflater, GZIPOutputStream}

/** Request bodies decoded as they are pulled: gzip headers of every shape, in pieces of any size, bombs and damage. */
class InflatingSourceTest extends munit.FunSuite:
  private val text = (1 to 500).map(i => s"line $i of the body\n").mkString

  /** A source of `bytes` in pieces of `piece` bytes, answered at once. */
  private def pieces(bytes: Array[Byte], piece: Int): Pieces = Pieces(bytes, piece)

  private final class Pieces(bytes: Array[Byte], piece: Int) extends BodySource:
    private var at = 0
    var cancelled = false
    def declaredLength: Long = bytes.length.toLong
    def pull(receiver: BodyReceiver): Unit =
      if at >= bytes.length then receiver.onEnd()
      else
        val n = math.min(piece, bytes.length - at)
        at += n
        receiver.onChunk(ByteBuffer.wrap(bytes, at - n, n))
    def cancel(): Unit = cancelled = true

  /** Everything `source` gives, or the error that ended it. */
  private def drain(source: BodySource): Either[Throwable, String] =
    val out = ByteArrayOutputStream()
    var result: Either[Throwable, String] | Null = null
    while result == null do
      source.pull(new BodyReceiver:
        def onChunk(chunk: ByteBuffer): Unit =
          val b = new Array[Byte](chunk.remaining)
          chunk.get(b)
          out.write(b)
        def onEnd(): Unit = result = Right(out.toString(UTF_8))
        def onError(cause: Throwable): Unit = result = Left(cause))
    result.nn

  private def gzip(bytes: Array[Byte]): Array[Byte] =
    val out = ByteArrayOutputStream()
    val z = GZIPOutputStream(out)
    z.write(bytes)
    z.close()
    out.toByteArray

  /** A gzip member with every optional header field: extra, name, comment, header CRC. */
  private def fullHeader(bytes: Array[Byte]): Array[Byte] =
    val deflater = Deflater(6, true)
    deflater.setInput(bytes)
    deflater.finish()
    val body = new Array[Byte](bytes.length + 64)
    val n = deflater.deflate(body)
    deflater.end()
    val crc = CRC32()
    crc.update(bytes)
    def le(v: Int) = Array(v.toByte, (v >>> 8).toByte, (v >>> 16).toByte, (v >>> 24).toByte)
    Array[Byte](0x1f, 0x8b.toByte, 8, (4 | 8 | 16 | 2).toByte, 0, 0, 0, 0, 0, 3) ++
      Array[Byte](3, 0, 'a', 'b', 'c') ++ "name.txt\u0000".getBytes(UTF_8) ++ "a comment\u0000".getBytes(UTF_8) ++
      Array[Byte](0x12, 0x34) ++ body.take(n) ++ le(crc.getValue.toInt) ++ le(bytes.length)

  for piece <- List(1, 3, 10, 1 << 20) do
    test(s"gzip bodies decode whole in pieces of $piece bytes, with every header field and several members"):
      val bytes = text.getBytes(UTF_8)
      assertEquals(drain(InflatingSource(pieces(gzip(bytes), piece), gzip = true, 1 << 20)), Right(text))
      assertEquals(drain(InflatingSource(pieces(fullHeader(bytes), piece), gzip = true, 1 << 20)), Right(text))
      val two = gzip(bytes) ++ fullHeader("!".getBytes(UTF_8))
      assertEquals(drain(InflatingSource(pieces(two, piece), gzip = true, 1 << 20)), Right(text + "!"))

  test("past the limit of decoded bytes, a BodyTooLargeException, and the source is cancelled"):
    val bomb = gzip(new Array[Byte](50 << 20))
    val source = pieces(bomb, 8192)
    drain(InflatingSource(source, gzip = true, 1 << 20)) match
      case Left(e: BodyTooLargeException) => assertEquals(e.limit, 1L << 20)
      case other => fail(s"not refused: $other")
    assert(source.cancelled)

  test("damage, a cut, garbage after the end and a wrong trailer are each a 400"):
    val good = gzip(text.getBytes(UTF_8))
    val flipped = good.clone()
    flipped(good.length / 2) = (flipped(good.length / 2) ^ 0x5a).toByte
    val wrongSize = good.clone()
    wrongSize(good.length - 1) = (wrongSize(good.length - 1) + 1).toByte
    for (name, bytes) <- List(
        "flipped" -> flipped,
        "cut" -> good.dropRight(3),
        "garbage after" -> (good ++ Array[Byte](1, 2, 3)),
        "wrong size" -> wrongSize,
        "not gzip" -> text.getBytes(UTF_8)
      )
    do
      drain(InflatingSource(pieces(bytes, 7), gzip = true, 1 << 20)) match
        case Left(e: RequestBodyException) => assertEquals(e.refusal.status.code, 400, name)
        case other => fail(s"$name: not refused: $other")
