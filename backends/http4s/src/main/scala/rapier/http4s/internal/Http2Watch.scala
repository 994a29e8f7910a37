package rapier.http4s.internal

import com.twitter.hpack.{Decoder, HeaderListener}
import fs2.Chunk
import rapier.server.Http2
import rapier.server.spi.Http2Frames.*
import rapier.server.spi.{Http2Ledger, Http2Stalls}

import java.io.ByteArrayInputStream
import java.nio.charset.StandardCharsets
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/**
 * Rapier's watch over an HTTP/2 connection Ember serves: it reads the frame headers going both ways, and what Ember
 * lacks it adds. It holds the client to the frame [[Rules]] Ember leaves unchecked and to the limits Ember has none
 * for (resets per window, CONTINUATION frames per header block, empty DATA frames, SETTINGS and PING acknowledgements
 * left unsent) by ending the connection with a GOAWAY ([[cut]]), and times the header block being received
 * ([[headerBlockFor]]); it refuses a stream past `maxConcurrentStreams` (REFUSED_STREAM to the client, and a CANCEL to
 * Ember, which must still read its HEADERS to keep HPACK's state); and it decodes each header block beside Ember, as
 * the same HPACK decoder, for the `:authority` Ember's URI loses and the `content-length` Ember doesn't hold the DATA
 * to (a stream whose DATA break it is reset PROTOCOL_ERROR, and cancelled on Ember's side). Its [[Http2Ledger]] tells
 * when the connection is idle (pings don't count) and which answers are stalled ([[stalled]]); Ember's resets count
 * toward the reset limit as the client's do, and its acknowledgements as sent once the socket took them ([[written]]).
 *
 * Ember reads in one fiber and writes in another: [[inbound]] and [[outbound]] each keep their own parser, and share
 * only thread-safe counts and the ledger, which they lock.
 */
private[http4s] final class Http2Watch(limits: Http2, maxHeaderBlock: Int, idleNanos: Long, stalls: Http2Stalls):
  import Http2Watch.*

  /** The code of the GOAWAY that ends the connection, once a limit is past; -1 until then. */
  @volatile var cut: Int = -1

  /** The highest stream the client opened: a GOAWAY's last stream. */
  @volatile var lastStream: Int = 0

  // Streams refused or malformed (a reset with its code), and answered before their client had sent all: each owes its
  // client an RST_STREAM
  private val refusals = new java.util.concurrent.ConcurrentLinkedQueue[Reset]()
  private val stopped = new java.util.concurrent.ConcurrentLinkedQueue[Integer]()
  // Streams Ember is told are cancelled (their frames left out from then on), and the CANCELs not yet put in
  private val cancelled = ConcurrentHashMap.newKeySet[Integer]()
  private val cancels = new java.util.concurrent.ConcurrentLinkedQueue[Integer]()
  private val clientEnded = ConcurrentHashMap.newKeySet[Integer]()
  // Streams Rapier gave up as stalled, whose reset of Ember's own is left out
  private val givenUp = ConcurrentHashMap.newKeySet[Integer]()
  // Bytes of DATA left out, for which the client is owed a WINDOW_UPDATE on the connection
  private val owedCredit = new AtomicInteger()
  private var dropping = false
  private var blockEnds = false

  private val authorities = new ConcurrentHashMap[Integer, String]()
  // The DATA bytes still to come on each stream whose request declared a content-length (RFC 9113 §8.1.1)
  private val lengthLeft = new ConcurrentHashMap[Integer, java.lang.Long]()
  private val refused = ConcurrentHashMap.newKeySet[Integer]()
  private val open = ConcurrentHashMap.newKeySet[Integer]()
  // The client's initial window for the streams Ember sends on (SETTINGS_INITIAL_WINDOW_SIZE)
  @volatile private var initialWindow = 65_535L
  private val ledger = Http2Ledger(idleNanos, stalls)
  // Acknowledgements Ember has handed to the socket since it last took a write whole
  private var acknowledging = 0

  private val in = new Reader(keeps = true)
  private val out = new Reader(keeps = false)
  // Bounded as Ember bounds the fields it makes (the list size it advertises), and its table as Ember's: a block that
  // decodes past it (an HPACK bomb of indexed fields) stops adding fields, and Ember refuses it
  private val decoder = new Decoder(maxHeaderBlock, 4096)
  private var block = new Array[Byte](1024)
  private var blockSize = 0
  private var blockStream = 0
  private var blockTooLarge = false
  private var broken = false
  private val floods = Floods(limits)
  private val rules = Rules()
  private var authority: String | Null = null
  private var contentLength = -1L

  /** The `:authority` of `stream`'s request, taken once; null without one. */
  def authorityOf(stream: Int): String | Null = authorities.remove(stream)

  /** Whether `stream` was refused: its request is answered by no one. */
  def wasRefused(stream: Int): Boolean = refused.remove(stream)

  /**
   * Watches bytes the client sent, in order; what Ember is to read of them: the frames of streams Ember has been told
   * are cancelled left out (but their header blocks, which HPACK's state needs), and a CANCEL put in, at a frame's end,
   * for each stream Rapier refused or ended.
   */
  def inbound(bytes: Array[Byte], offset: Int, length: Int): Chunk[Byte] =
    var pieces: Chunk[Byte] = Chunk.empty
    var from = offset
    var at = offset
    val end = offset + length
    def pass(until: Int): Unit =
      if until > from then pieces = pieces ++ Chunk.array(bytes, from, until - from)
      from = until
    if in.atBoundary && !cancels.isEmpty then pieces = owedCancels()
    while at < end && cut < 0 do
      val start = at
      val held = in.headerHeld
      at = in.feed(bytes, at, end)
      if in.oversized then fail(FrameSizeError)
      else if in.headerDone then
        in.headerDone = false
        floods.begun(in)
        val broken = rules.header(in)
        if broken >= 0 then fail(broken)
        dropping = in.stream != 0 && in.kind != Headers && in.kind != Continuation && cancelled.contains(in.stream)
        // A header begun in an earlier read was held back: it passes whole now, unless its frame is left out
        if held > 0 || dropping then
          pass(start)
          if !dropping then pieces = pieces ++ Chunk.array(in.header)
          from = at
      else if !in.atPayload then
        // A header not whole yet: held back until it is
        pass(start)
        from = at
      else if dropping then
        pass(start)
        from = at
      if in.done then
        if dropping && in.kind == Data && in.length > 0 then owedCredit.addAndGet(in.length)
        val cancel = frameDone()
        dropping = false
        in.reset()
        if cancel > 0 || !cancels.isEmpty then
          pass(at)
          if cancel > 0 then pieces = pieces ++ Chunk.array(rstStream(cancel, Cancel))
          pieces = pieces ++ owedCancels()
    pass(end)
    pieces

  // The CANCELs Ember is owed, for streams it ended while its client was still sending.
  private def owedCancels(): Chunk[Byte] =
    var frames: Chunk[Byte] = Chunk.empty
    var stream = cancels.poll()
    while stream != null do
      frames = frames ++ Chunk.array(rstStream(stream, Cancel))
      stream = cancels.poll()
    frames

  /**
   * The frame just read whole: its counts, and for a header block's end the decoding. The stream to cancel on Ember's
   * side (a refused one), or 0.
   */
  private def frameDone(): Int =
    val kind = in.kind
    if kind != Continuation && blockStream != 0 then return fail(ProtocolError)
    val broken = rules.frame(in)
    if broken >= 0 then return fail(broken)
    if floods.received(in) then return fail(EnhanceYourCalm)
    ledger.synchronized(ledger.client(in))
    kind match
      case Data =>
        val end = (in.flags & EndStream) != 0
        val left = lengthLeft.get(in.stream)
        if left != null then
          val now = left - (if (in.flags & Padded) != 0 then in.length - 1 - in.padding else in.length)
          if now < 0 || (end && now != 0) then return malformed(in.stream)
          if end then lengthLeft.remove(in.stream) else lengthLeft.put(in.stream, now)
        if end then ended(in.stream)
        0
      case Headers =>
        if in.payloadBroken then return fail(ProtocolError)
        blockStream = in.stream
        blockEnds = (in.flags & EndStream) != 0
        blockTooLarge = false
        blockSize = 0
        append(in.fragment, in.fragmentSize)
        if (in.flags & EndHeaders) != 0 then headerBlockDone() else 0
      case Continuation =>
        if blockStream == 0 || in.stream != blockStream then return fail(ProtocolError)
        append(in.fragment, in.fragmentSize)
        if (in.flags & EndHeaders) != 0 then headerBlockDone() else 0
      case RstStream =>
        closed(in.stream)
        cancelled.remove(in.stream)
        0
      case Settings =>
        if (in.flags & Ack) == 0 then settings()
        0
      case _ => 0

  // The client's initial window for the streams Ember sends on (SETTINGS_INITIAL_WINDOW_SIZE)
  private def settings(): Unit =
    var i = 0
    while i + 6 <= in.fragmentSize do
      val id = ((in.fragment(i) & 0xff) << 8) | (in.fragment(i + 1) & 0xff)
      if id == 4 then initialWindow = (int(in.fragment, i + 2) & 0xffffffffL)
      i += 6

  private def append(bytes: Array[Byte], size: Int): Unit =
    if blockSize + size > maxHeaderBlock then blockTooLarge = true
    else
      if blockSize + size > block.length then
        block = java.util.Arrays.copyOf(block, math.max(blockSize + size, block.length * 2))
      System.arraycopy(bytes, 0, block, blockSize, size)
      blockSize += size

  private def headerBlockDone(): Int =
    val stream = blockStream
    blockStream = 0
    // Past its limit, Ember ends the connection: the block is not decoded, and the decoders part ways with it
    if blockTooLarge then
      broken = true
      return 0
    if !broken then
      authority = null
      contentLength = -1L
      try
        decoder.decode(ByteArrayInputStream(block, 0, blockSize), listener)
        decoder.endHeaderBlock()
      catch
        case _: java.io.IOException => broken = true
    // A new stream (trailers come on one already open)
    if stream > lastStream then
      lastStream = stream
      if open.size >= limits.maxConcurrentStreams then
        // A client that keeps opening streams past the limit is attacking: what it is owed is bounded
        if refused.size >= MaxRefused || cancelled.size >= MaxCancelled then return fail(EnhanceYourCalm)
        if floods.made() then return fail(EnhanceYourCalm)
        refused.add(stream)
        refusals.add(Reset(stream, RefusedStream))
        cancelled.add(stream)
        ledger.synchronized(ledger.closed(stream))
        return stream
      open.add(stream)
      if authority != null then authorities.put(stream, authority.nn)
      if contentLength > 0 && blockEnds then return malformed(stream)
      if contentLength >= 0 && !blockEnds then lengthLeft.put(stream, contentLength)
    else if blockEnds then
      // Trailers: the body they end must have come whole
      val left = lengthLeft.remove(stream)
      if left != null && left != 0L then return malformed(stream)
    if blockEnds then ended(stream)
    0

  // A request whose DATA break its content-length: reset PROTOCOL_ERROR, and cancelled on Ember's side (returned).
  private def malformed(stream: Int): Int =
    if cancelled.size >= MaxCancelled then return fail(ProtocolError)
    if floods.made() then return fail(EnhanceYourCalm)
    closed(stream)
    ledger.synchronized(ledger.closed(stream))
    refusals.add(Reset(stream, ProtocolError))
    cancelled.add(stream)
    stream

  // The client has sent all of `stream`.
  private def ended(stream: Int): Unit =
    clientEnded.add(stream)
    cancelled.remove(stream)

  private val listener: HeaderListener = (name, value, _) =>
    if java.util.Arrays.equals(name, AuthorityName) then authority = String(value, StandardCharsets.ISO_8859_1)
    else if java.util.Arrays.equals(name, ContentLengthName) then
      // Digits only, as Rapier reads it; a value it can't read is Rapier's to refuse
      val text = String(value, StandardCharsets.ISO_8859_1)
      contentLength = if text.nonEmpty && text.length <= 18 && text.forall(_.isDigit) then text.toLong else -1L

  private def fail(code: Int): Int =
    cut = code
    0

  private def closed(stream: Int): Unit =
    open.remove(stream)
    authorities.remove(stream)
    lengthLeft.remove(stream)
    clientEnded.remove(stream)

  /**
   * Ember has ended its side of `stream`: if its client is still sending (the response came before the body's end),
   * the client is told to stop with RST_STREAM NO_ERROR (RFC 9113 §8.1), Ember that the stream is cancelled, and what
   * the client still sends on it is left out.
   */
  private def answered(stream: Int): Unit =
    if open.contains(stream) && !clientEnded.contains(stream) && cancelled.size < MaxCancelled then
      cancelled.add(stream)
      cancels.add(stream)
      stopped.add(stream)
    closed(stream)

  /**
   * The frames the client is owed: after what Ember wrote (`written`), RST_STREAM NO_ERROR for the streams it answered
   * early, which must follow their answers; after a read, REFUSED_STREAM for the streams refused, PROTOCOL_ERROR for
   * those whose DATA broke their content-length, and a WINDOW_UPDATE for the DATA left out, which Ember never counted.
   */
  def owedToClient(written: Boolean): Array[Byte] =
    val credit = if written then 0 else owedCredit.getAndSet(0)
    if if written then stopped.isEmpty else refusals.isEmpty && credit == 0 then Array.emptyByteArray
    else
      val frames = new java.io.ByteArrayOutputStream()
      var stream = if written then stopped.poll() else null
      while stream != null do
        frames.write(rstStream(stream, NoError))
        stream = stopped.poll()
      var reset = if written then null else refusals.poll()
      while reset != null do
        frames.write(rstStream(reset.stream, reset.code))
        reset = refusals.poll()
      if credit > 0 then frames.write(windowUpdate(0, credit))
      frames.toByteArray

  /** Whether the client has spent `nanos` or more on the header block it is sending. */
  def headerBlockFor(nanos: Long): Boolean = floods.blockPendingFor(nanos)

  /** Whether the connection has been idle (its ledger's: no stream open, nothing but pings) at `now`. */
  def idle(now: Long): Boolean = ledger.synchronized(ledger.idle(now))

  /**
   * The answers the ledger finds stalled at `now`, given up: Ember is owed a CANCEL for each (put in at its next read:
   * it reads only what the client sends), the client an RST_STREAM CANCEL, which the caller writes at once, and the
   * answer's body an end, which lets its chunks and file go whether or not Ember reads again soon.
   */
  def stalled(now: Long): Seq[Int] =
    val streams = scala.collection.mutable.ArrayBuffer.empty[Int]
    ledger.synchronized(ledger.check(now, stream => streams += stream))
    streams.foreach { stream =>
      if givenUp.size < MaxCancelled then givenUp.add(stream)
      if open.contains(stream) && cancelled.size < MaxCancelled then
        cancelled.add(stream)
        cancels.add(stream)
      closed(stream)
    }
    streams.toSeq

  /** The connection has ended: its stalled answers are no longer the server's. */
  def close(): Unit = ledger.synchronized(ledger.close())

  /** Ember's last write has been taken by the socket: the acknowledgements in it count as sent. */
  def written(): Unit =
    var n = acknowledging
    acknowledging = 0
    while n > 0 do
      floods.acknowledged()
      n -= 1

  /**
   * Watches bytes Ember writes, in order: the streams it ends, the resets it makes, and the acknowledgements it sends
   * (counted once the socket has taken them, [[written]]: Ember queues without bound for a client that reads nothing).
   * What to write instead, where Ember's connection WINDOW_UPDATE is corrected; null to write them as they are.
   */
  def outbound(bytes: Array[Byte], offset: Int, length: Int): Array[Byte] | Null =
    var rewritten: Array[Byte] | Null = null
    // Where the frame being read began in these bytes (-1: in an earlier write), and the frames to leave out
    var frameStart = -1
    var drops: scala.collection.mutable.ArrayBuffer[Int] | Null = null
    var at = offset
    val end = offset + length
    while at < end do
      if out.atBoundary then frameStart = at
      at = out.feed(bytes, at, end)
      if out.headerDone then
        out.headerDone = false
        // Ember restores its connection's window to the client's initial window, not its own (RFC 9113 §6.9.2: the
        // connection's starts at 65,535 whatever SETTINGS say): a client with a large one sees its window overflow
        if out.kind == WindowUpdate && out.stream == 0 && out.length == 4 && at + 4 <= end then
          val increment = int(bytes, at).toLong - initialWindow + limits.initialWindowSize
          if rewritten == null then rewritten = java.util.Arrays.copyOfRange(bytes, offset, end)
          putInt(rewritten.nn, at - offset, math.max(1L, increment).toInt)
        // Ember allows more streams than the client may open (see RapierHttp2.emberStreams): the client reads the limit
        else if out.kind == Settings && (out.flags & Ack) == 0 && at + out.length <= end then
          var entry = at
          while entry + 6 <= at + out.length do
            if (((bytes(entry) & 0xff) << 8) | (bytes(entry + 1) & 0xff)) == MaxConcurrentStreamsId then
              if rewritten == null then rewritten = java.util.Arrays.copyOfRange(bytes, offset, end)
              putInt(rewritten.nn, entry + 2 - offset, limits.maxConcurrentStreams)
            entry += 6
      if out.done then
        ledger.synchronized(ledger.server(out))
        out.kind match
          case Data => if (out.flags & EndStream) != 0 then answered(out.stream)
          case Headers => if (out.flags & EndStream) != 0 then answered(out.stream)
          case RstStream =>
            closed(out.stream)
            // Ember resets a stream whose body Rapier ended, with PROTOCOL_ERROR: its client has had the CANCEL
            if frameStart >= 0 && givenUp.remove(out.stream) then
              if drops == null then drops = scala.collection.mutable.ArrayBuffer.empty[Int]
              drops.nn += frameStart += at
            else if floods.sent(out) then cut = EnhanceYourCalm
          case Settings | Ping => if (out.flags & Ack) != 0 then acknowledging += 1
          case _ => ()
        out.reset()
        frameStart = -1
    if drops == null then rewritten
    else
      // Indices into `from` are the bytes' own less `shift` (a rewritten copy starts at `offset`)
      val from = if rewritten == null then bytes else rewritten.nn
      val shift = if rewritten == null then 0 else offset
      val kept = java.io.ByteArrayOutputStream(length)
      var next = offset
      drops.nn.grouped(2).foreach { range =>
        kept.write(from, next - shift, range(0) - next)
        next = range(1)
      }
      kept.write(from, next - shift, end - next)
      kept.toByteArray

private[http4s] object Http2Watch:
  // RFC 9113 §6.5.2: SETTINGS_MAX_CONCURRENT_STREAMS
  private val MaxConcurrentStreamsId = 0x3
  // Streams answered early and cancelled at once: past it, a stream answered early is left to its client
  private val MaxCancelled = 10_000
  // Streams refused whose requests Ember has not handed over yet
  private val MaxRefused = 10_000

  private val AuthorityName = ":authority".getBytes(StandardCharsets.US_ASCII)
  private val ContentLengthName = "content-length".getBytes(StandardCharsets.US_ASCII)

  private final case class Reset(stream: Int, code: Int)
