package rapier.server.spi

import rapier.server.Http2

import java.util.concurrent.atomic.AtomicInteger

/**
 * HTTP/2's frames (RFC 9113 §4, §6) as a watch beside a server's own HTTP/2 layer reads them, for the limits that layer
 * lacks: a [[Reader]] per direction, the [[Floods]] a client's frames are counted against, and the few frames a watch
 * sends itself.
 */
object Http2Frames:
  val Data = 0
  val Headers = 1
  val PriorityFrame = 2
  val RstStream = 3
  val Settings = 4
  val Ping = 6
  val GoAway = 7
  val WindowUpdate = 8
  val Continuation = 9
  val EndStream = 0x1
  val Ack = 0x1
  val EndHeaders = 0x4
  val Padded = 0x8
  val Priority = 0x20

  val NoError = 0
  val ProtocolError = 1
  val FlowControlError = 3
  val FrameSizeError = 6
  val RefusedStream = 7
  val Cancel = 8
  val EnhanceYourCalm = 11

  // SETTINGS_MAX_FRAME_SIZE's default, which the servers advertise and hold a client to
  val MaxFrameSize = 16_384

  // A flood's thresholds, as Netty's HTTP/2 codec sets its own: past them a client is attacking, not slow
  private val MaxEmptyData = 10
  private val MaxContinuations = 16
  private val MaxUnacknowledged = 10_000

  /**
   * How often a watch looks at its deadlines (nanoseconds, each 0 for none): a quarter of the shorter, at least 10 ms,
   * so a connection ends within 1.25 times its deadline; 0 when there is none.
   */
  def deadlineTick(deadlines: Long*): Long =
    val set = deadlines.filter(_ > 0)
    if set.isEmpty then 0L else math.max(set.min / 4, 10_000_000L)

  /** An RST_STREAM frame for `stream` with `code`. */
  def rstStream(stream: Int, code: Int): Array[Byte] = withInt(RstStream, stream, code)

  /** A WINDOW_UPDATE frame for `stream` of `increment` bytes. */
  def windowUpdate(stream: Int, increment: Int): Array[Byte] = withInt(WindowUpdate, stream, increment)

  // A frame of `kind` on `stream` whose payload is one 32-bit value.
  private def withInt(kind: Int, stream: Int, value: Int): Array[Byte] =
    val frame = new Array[Byte](13)
    frame(2) = 4
    frame(3) = kind.toByte
    putInt(frame, 5, stream)
    putInt(frame, 9, value)
    frame

  /** A GOAWAY frame naming `lastStream` with `code`. */
  def goAway(lastStream: Int, code: Int): Array[Byte] =
    val frame = new Array[Byte](17)
    frame(2) = 8
    frame(3) = GoAway.toByte
    putInt(frame, 9, lastStream)
    putInt(frame, 13, code)
    frame

  /** Writes `v` big-endian at `at`. */
  def putInt(a: Array[Byte], at: Int, v: Int): Unit =
    a(at) = (v >>> 24).toByte
    a(at + 1) = (v >>> 16).toByte
    a(at + 2) = (v >>> 8).toByte
    a(at + 3) = v.toByte

  /** The big-endian 32-bit value at `at`. */
  def int(a: Array[Byte], at: Int): Int =
    ((a(at) & 0xff) << 24) | ((a(at + 1) & 0xff) << 16) | ((a(at + 2) & 0xff) << 8) | (a(at + 3) & 0xff)

  /**
   * What a connection's frames are counted against, for the known floods: resets past `maxResetsPerWindow` within the
   * window, the client's and the server's alike (rapid reset, CVE-2023-44487, and the resets a client provokes,
   * "MadeYouReset"), CONTINUATIONs past 16 in one header block, empty DATA frames in a row past 10, SETTINGS and PING
   * frames left unacknowledged past 10,000; and how long the client has spent on what opens a request: its first
   * SETTINGS, due when the watch starts (just after the preface), then each header block, timed until its end, for the
   * deadline a client that stops partway would otherwise escape. The client's frames are read in one thread; the
   * server's counted, and the deadline looked at, in others.
   */
  final class Floods(limits: Http2):
    private var emptyData = 0
    private var continuations = 0
    private val resets = new Array[Long](limits.maxResetsPerWindow)
    private var resetAt = 0
    private var resetCount = 0L
    private val unacknowledged = AtomicInteger()
    private var settled = false
    // When what the client is sending of a head began (System.nanoTime), 0 for none: its first SETTINGS from the start
    @volatile private var blockSince = System.nanoTime()

    /** The client's first SETTINGS has come by another way than the watch (an h2c upgrade's, a layer's own reading). */
    def settingsReceived(): Unit =
      if !settled then
        settled = true
        blockSince = 0L

    /** The client's frame `in` has its header read: a HEADERS frame begins a header block, timed until its end. */
    def begun(in: Reader): Unit = if in.kind == Headers then blockSince = System.nanoTime()

    /** Whether the header block being received, or the client's first SETTINGS, has been awaited `nanos` or more. */
    def blockPendingFor(nanos: Long): Boolean =
      val since = blockSince
      since != 0L && System.nanoTime() - since >= nanos

    /** The client's frame `in` has just been read whole: whether it is past a flood's limit. */
    def received(in: Reader): Boolean = in.kind match
      case Data =>
        val size = if (in.flags & Padded) != 0 then in.length - 1 - in.padding else in.length
        if size <= 0 && (in.flags & EndStream) == 0 then
          emptyData += 1
          emptyData > MaxEmptyData
        else
          emptyData = 0
          false
      case Headers =>
        emptyData = 0
        continuations = 0
        if (in.flags & EndHeaders) != 0 then blockSince = 0L
        false
      case Continuation =>
        continuations += 1
        if (in.flags & EndHeaders) != 0 then blockSince = 0L
        continuations > MaxContinuations
      case RstStream => reset()
      case Settings | Ping =>
        if in.kind == Settings && !settled && (in.flags & Ack) == 0 then
          settled = true
          blockSince = 0L
        (in.flags & Ack) == 0 && unacknowledged.incrementAndGet() > MaxUnacknowledged
      case _ => false

    /**
     * The server's frame `out` has just been written whole: an acknowledgement counts off what it answers; a reset
     * counts as a client's does. Whether it is past the reset limit.
     */
    def sent(out: Reader): Boolean = out.kind match
      case Settings | Ping =>
        if (out.flags & Ack) != 0 then unacknowledged.decrementAndGet()
        false
      case RstStream => reset()
      case _ => false

    /** The watch resets a stream itself (refused, malformed): whether that reset is past the limit. */
    def made(): Boolean = reset()

    /** An acknowledgement of the server's has been taken by the connection: it counts off what it answers. */
    def acknowledged(): Unit = unacknowledged.decrementAndGet()

    // One more reset: whether it is one too many. The oldest of the last `maxResetsPerWindow`, within the window. Locked:
    // a server may read in one thread and write in another.
    private def reset(): Boolean = synchronized:
      val now = System.nanoTime()
      if resetCount >= resets.length && now - resets(resetAt) < limits.resetWindowSeconds * 1_000_000_000L then true
      else
        resets(resetAt) = now
        resetAt = (resetAt + 1) % resets.length
        resetCount += 1
        false

  /**
   * RFC 9113's rules on a client's frames that a server's HTTP/2 layer may leave unchecked, as far as a frame's header
   * and the payload a [[Reader]] keeps tell (no stream states): frames on the stream they belong to (§6), their sizes
   * (§4.2, §6), a header block not interrupted (§6.10), client streams odd (§5.1.1), padding within the payload (§6.1),
   * SETTINGS values in range (§6.5.2). Each check gives the code of the connection error, or -1.
   */
  final class Rules:
    private var blockStream = 0

    /** The client's frame `in` has its header read. */
    def header(in: Reader): Int =
      val kind = in.kind
      val length = in.length
      if blockStream != 0 && (kind != Continuation || in.stream != blockStream) then ProtocolError
      else if kind == Continuation && blockStream == 0 then ProtocolError
      else if length > MaxFrameSize then FrameSizeError
      else
        kind match
          case Data | Headers | PriorityFrame | RstStream | Continuation if in.stream == 0 => ProtocolError
          case Settings | Ping | GoAway if in.stream != 0 => ProtocolError
          case Headers if (in.stream & 1) == 0 => ProtocolError
          case RstStream | WindowUpdate if length != 4 => FrameSizeError
          case PriorityFrame if length != 5 => FrameSizeError
          case Ping if length != 8 => FrameSizeError
          case Settings if length % 6 != 0 || ((in.flags & Ack) != 0 && length != 0) => FrameSizeError
          case _ => -1

    /** The client's frame `in` has been read whole. */
    def frame(in: Reader): Int = in.kind match
      case Headers | Data if in.payloadBroken => ProtocolError
      case Headers | Continuation =>
        blockStream = if (in.flags & EndHeaders) != 0 then 0 else in.stream
        -1
      case Settings if (in.flags & Ack) == 0 => settings(in)
      case _ => -1

    private def settings(in: Reader): Int =
      var i = 0
      var code = -1
      while code < 0 && i + 6 <= in.fragmentSize do
        val id = ((in.fragment(i) & 0xff) << 8) | (in.fragment(i + 1) & 0xff)
        val value = int(in.fragment, i + 2) & 0xffffffffL
        code = id match
          case 2 if value > 1 => ProtocolError // SETTINGS_ENABLE_PUSH
          case 4 if value > Int.MaxValue => FlowControlError // SETTINGS_INITIAL_WINDOW_SIZE
          case 5 if value < MaxFrameSize || value > 0xffffff => ProtocolError // SETTINGS_MAX_FRAME_SIZE
          case _ => -1
        i += 6
      code

  /** Bytes a [[Reader]] reads other than an array's: a server's own buffer type. */
  trait Bytes:
    /** Copies `n` bytes from `index` into `into` at `at`. */
    def copy(index: Int, into: Array[Byte], at: Int, n: Int): Unit

  /**
   * One direction's frames on a connection, read as bytes come in any pieces: a frame's 9-byte header, then its
   * payload, of which only what the watch reads is kept, where `keeps`: a SETTINGS or WINDOW_UPDATE frame's payload,
   * a padded DATA frame's padding length, and, unless `blocks` is off (a server that decodes its header blocks
   * itself), a header block's fragment (its padding and priority taken off).
   */
  final class Reader(keeps: Boolean, blocks: Boolean = true):
    private val head = new Array[Byte](9)
    private var headFill = 0
    private var left = 0
    var length = 0
    var kind = 0
    var flags = 0
    var stream = 0
    var done = false
    // Of a HEADERS or CONTINUATION frame: the fragment, its size, and the padding's
    var fragment = new Array[Byte](1024)
    var fragmentSize = 0
    var padding = 0
    var payloadBroken = false
    var oversized = false
    private var payload = new Array[Byte](0)
    private var payloadFill = 0
    private var keep = false

    // Set when a read completes the header: the caller decides on the frame before its payload
    var headerDone = false

    /** Bytes of the current frame's header read, when it is not whole yet. */
    def headerHeld: Int = if headFill < 9 then headFill else 0

    /** Whether the current frame's header is whole (its payload being read). */
    def atPayload: Boolean = headFill == 9

    /** Whether no frame is begun. */
    def atBoundary: Boolean = headFill == 0

    /** The current frame's header, a copy. */
    def header: Array[Byte] = head.clone()

    private val array = new ArrayBytes

    /**
     * Reads from `at`, to the end of the current frame's header or of its payload at most; where it stopped.
     */
    def feed(bytes: Array[Byte], at: Int, end: Int): Int =
      array.bytes = bytes
      feed(array, at, end)

    /** As the array's `feed`, from bytes of another kind. */
    def feed(bytes: Bytes, at: Int, end: Int): Int =
      var i = at
      if headFill < 9 then
        val n = math.min(9 - headFill, end - i)
        bytes.copy(i, head, headFill, n)
        headFill += n
        i += n
        if headFill == 9 then
          headerDone = true
          length = ((head(0) & 0xff) << 16) | ((head(1) & 0xff) << 8) | (head(2) & 0xff)
          kind = head(3) & 0xff
          flags = head(4) & 0xff
          stream = (((head(5) & 0x7f) << 24) | ((head(6) & 0xff) << 16) | ((head(7) & 0xff) << 8) | (head(8) & 0xff))
          left = length
          padding = 0
          payloadBroken = false
          keep = keeps &&
            ((blocks && (kind == Headers || kind == Continuation)) || kind == Settings || kind == WindowUpdate ||
              (kind == Data && (flags & Padded) != 0))
          if keep && length > MaxFrameSize then
            oversized = true
            return end
          if keep then
            if payload.length < length then payload = new Array[Byte](length)
            payloadFill = 0
          if length > 0 then return i
      if headFill == 9 then
        val n = math.min(left, end - i)
        if keep then
          bytes.copy(i, payload, payloadFill, n)
          payloadFill += n
        left -= n
        i += n
        if left == 0 then
          done = true
          if keep then parsePayload()
      i

    private def parsePayload(): Unit =
      var from = 0
      if (flags & Padded) != 0 && (kind == Headers || kind == Data) then
        if length == 0 then payloadBroken = true
        else
          padding = payload(0) & 0xff
          from = 1
      if kind == Headers && (flags & Priority) != 0 then from += 5
      val size = length - from - padding
      if size < 0 then
        payloadBroken = true
        fragmentSize = 0
      else if kind != Data then
        if fragment.length < size then fragment = new Array[Byte](size)
        System.arraycopy(payload, from, fragment, 0, size)
        fragmentSize = size

    def reset(): Unit =
      headFill = 0
      done = false

  private final class ArrayBytes extends Bytes:
    var bytes: Array[Byte] = Array.emptyByteArray
    def copy(index: Int, into: Array[Byte], at: Int, n: Int): Unit = System.arraycopy(bytes, index, into, at, n)
