package rapier.server.spi

/**
 * The TLS records a client sends, read from their 5-byte headers as they come in, before the server's engine
 * decrypts them (RFC 5246 §6.2.1, RFC 8446 §5.1): for the renegotiation a client starts on TLS 1.2, a handshake record
 * after its handshake ended, which the JDK's engines honour — a new handshake's CPU for each one a client cares to
 * send, on a connection it keeps. [[feed]] says when one begins; the server then closes the connection.
 *
 * A client's handshake ends with its ChangeCipherSpec and one handshake record after it: TLS 1.2's Finished, or on TLS
 * 1.3 the second ClientHello that follows a HelloRetryRequest, after which TLS 1.3 carries everything in application-data
 * records. A reader put on a connection whose handshake is over (`afterHandshake`) takes its first bytes for a record's
 * start; a header that can't be one (an unknown type, another version, a length past the largest record) leaves it
 * blind to the rest, never wrong about it.
 */
final class TlsRecords(afterHandshake: Boolean = false):
  private val head = new Array[Byte](5)
  private var fill = 0
  private var left = 0
  // 0: the handshake; 1: after the client's ChangeCipherSpec, one handshake record due; 2: the handshake over
  private var stage = if afterHandshake then 2 else 0
  private var blind = false

  private val array = new TlsRecords.ArrayBytes

  /** Reads `bytes` from `at` to `end`: whether a client-initiated renegotiation began among them. */
  def feed(bytes: Array[Byte], at: Int, end: Int): Boolean =
    array.bytes = bytes
    feed(array, at, end)

  /** As the array's `feed`, from bytes of a server's own kind. */
  def feed(bytes: Http2Frames.Bytes, at: Int, end: Int): Boolean =
    var i = at
    var renegotiates = false
    while i < end && !blind && !renegotiates do
      if left > 0 then
        val n = math.min(left, end - i)
        left -= n
        i += n
      else
        val n = math.min(5 - fill, end - i)
        bytes.copy(i, head, fill, n)
        fill += n
        i += n
        if fill == 5 then
          fill = 0
          renegotiates = record()
    renegotiates

  // A record's header is read: whether it is a renegotiation's
  private def record(): Boolean =
    val kind = head(0) & 0xff
    val length = ((head(3) & 0xff) << 8) | (head(4) & 0xff)
    if kind < TlsRecords.ChangeCipherSpec || kind > TlsRecords.ApplicationData || head(1) != 3 ||
      length > TlsRecords.MaxRecord
    then
      blind = true
      false
    else
      left = length
      kind match
        case TlsRecords.ChangeCipherSpec =>
          if stage == 0 then stage = 1
          false
        case TlsRecords.Handshake =>
          if stage == 1 then
            stage = 2
            false
          else stage == 2
        case _ => false

object TlsRecords:
  private final class ArrayBytes extends Http2Frames.Bytes:
    var bytes: Array[Byte] = Array.emptyByteArray
    def copy(index: Int, into: Array[Byte], at: Int, n: Int): Unit = System.arraycopy(bytes, index, into, at, n)

  private val ChangeCipherSpec = 20
  private val Handshake = 22
  private val ApplicationData = 23
  // 2^14 bytes and the most a cipher may add (RFC 5246 §6.2.3)
  private val MaxRecord = (1 << 14) + 2048
