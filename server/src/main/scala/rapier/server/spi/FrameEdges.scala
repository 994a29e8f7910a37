package rapier.server.spi

/**
 * Where a server's WebSocket frames end in the bytes it writes (RFC 6455 §5.2; a server's frames are unmasked), so that
 * a close of Rapier's can go between two of a server's own: its frames may be written a piece at a time. Only headers
 * are read; payloads are counted past.
 */
final class FrameEdges:
  private val header = new Array[Byte](2)
  private var headerHeld = 0
  // The header's bytes still to come past its first two (an extended length), as they are read
  private var extendedLeft = 0
  private var length = 0L
  // Payload bytes left of the frame now written
  private var left = 0L

  // Where the first close frame began in the bytes last followed, or -1
  private var closeAt = -1

  /** The offset of the first close frame's first byte in the bytes last followed, or -1 if none began there. */
  def closeStart: Int = closeAt

  /** Whether the bytes so far end at a frame's end. */
  def atEdge: Boolean = headerHeld == 0 && left == 0

  /**
   * Follows the next `n` bytes the server writes, read by `at`: the offset in them of the first frame's end (0 if they
   * start at one), or -1 if none is in them.
   */
  def follow[B](bytes: B, n: Int)(using at: FrameEdges.At[B]): Int =
    var first = if atEdge then 0 else -1
    closeAt = -1
    var i = 0
    while i < n do
      if left > 0 then
        val k = math.min(left, (n - i).toLong).toInt
        i += k
        left -= k
      else
        val b = at(bytes, i) & 0xff
        if headerHeld == 0 && (b & 0x0f) == 8 && closeAt < 0 then closeAt = i
        i += 1
        if headerHeld < 2 then
          header(headerHeld) = b.toByte
          headerHeld += 1
          if headerHeld == 2 then
            (header(1) & 0x7f) match
              case 126 => extendedLeft = 2
              case 127 => extendedLeft = 8
              case short =>
                extendedLeft = 0
                length = short.toLong
            if extendedLeft > 0 then length = 0L
        else
          length = (length << 8) | b
          extendedLeft -= 1
        if headerHeld == 2 && extendedLeft == 0 then
          headerHeld = 0
          left = length
      if first < 0 && atEdge then first = i
    first

object FrameEdges:
  /** How to read the byte at an index of a server's kind of bytes. */
  trait At[B]:
    def apply(bytes: B, i: Int): Byte
