package rapier.testkit

import java.nio.charset.StandardCharsets

/**
 * A raw WebSocket client's pieces, for tests that speak RFC 6455 frame by frame over [[RawHttp]]: the opcodes, the
 * opening handshake's request, client frames (masked, in every length encoding) and the server's frames read back.
 */
object WebSocketFrames:
  val Continuation = 0
  val Text = 1
  val Binary = 2
  val Close = 8
  val Ping = 9
  val Pong = 10

  // RFC 6455 §1.3's example
  val SampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
  val SampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

  /** A request to open a WebSocket on `path`, with `key`, and `extra` header lines (each ending in CRLF). */
  def handshake(path: String, key: String = SampleKey, extra: String = ""): String =
    s"GET $path HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      s"Sec-WebSocket-Key: $key\r\nSec-WebSocket-Version: 13\r\n$extra\r\n"

  final case class Frame(fin: Boolean, opcode: Int, payload: Array[Byte], rsv: Int = 0):
    def text: String = new String(payload, StandardCharsets.UTF_8)
    def closeCode: Int = if payload.length >= 2 then ((payload(0) & 0xff) << 8) | (payload(1) & 0xff) else -1

  def closePayload(code: Int, reason: String): Array[Byte] =
    Array((code >> 8).toByte, code.toByte) ++ reason.getBytes(StandardCharsets.UTF_8)

  /** A client's frame: masked (as clients must) unless told otherwise. */
  def frame(
      opcode: Int,
      content: String | Array[Byte],
      fin: Boolean = true,
      masked: Boolean = true,
      rsv: Int = 0
  ): Array[Byte] =
    val payload = content match
      case s: String => s.getBytes(StandardCharsets.UTF_8)
      case b: Array[Byte] => b
    val out = java.io.ByteArrayOutputStream()
    out.write((if fin then 0x80 else 0) | rsv | opcode)
    val maskBit = if masked then 0x80 else 0
    val n = payload.length
    if n < 126 then out.write(maskBit | n)
    else if n < 65536 then
      out.write(maskBit | 126)
      out.write(n >> 8)
      out.write(n & 0xff)
    else
      out.write(maskBit | 127)
      for shift <- 56 to 0 by -8 do out.write(((n.toLong >> shift) & 0xff).toInt)
    if masked then
      val mask = Array[Byte](0x37, 0xfa.toByte, 0x21, 0x3d)
      out.write(mask)
      out.write(Array.tabulate[Byte](n)(i => (payload(i) ^ mask(i % 4)).toByte))
    else out.write(payload)
    out.toByteArray

  /** Reads one frame from the server (unmasked, as servers send them). */
  def readFrame(c: RawHttp): Frame =
    val head = c.readBytes(2)
    if head.length < 2 then throw java.io.EOFException("the connection closed before a frame")
    val fin = (head(0) & 0x80) != 0
    val opcode = head(0) & 0x0f
    val short = head(1) & 0x7f
    val length =
      if short < 126 then short.toLong
      else if short == 126 then c.readBytes(2).foldLeft(0L)((n, b) => (n << 8) | (b & 0xff))
      else c.readBytes(8).foldLeft(0L)((n, b) => (n << 8) | (b & 0xff))
    Frame(fin, opcode, c.readBytes(length.toInt), head(0) & 0x70)
