package rapier.server.spi

import rapier.server.spi.Http2Frames.*

import java.util.function.IntConsumer

/**
 * An HTTP/2 connection's open streams and the window its client gives the server to answer them (RFC 9113 §5.1,
 * §6.9), kept from the frames a watch reads both ways, for deadlines that count progress rather than traffic:
 *
 *   - An answer whose client stops taking it, its window shut or opened a few bytes at a time, is stalled: one that
 *     has waited for window for `idleNanos` while less than [[Http2Ledger.Progress]] of it went out is reset
 *     ([[check]]). While the whole server holds more stalled answers than its [[Http2Stalls]] bound, the connection's
 *     longest stalled are reset first.
 *   - The connection is idle once no stream has been open and no HEADERS or DATA has gone either way for `idleNanos`
 *     ([[idle]]): PINGs, SETTINGS and window updates keep nothing alive.
 *
 * Frames are counted without reading the clock; [[check]], a few times per deadline, reads it once. Streams live in an
 * open-addressed table of primitive arrays: a stream costs no allocation. One thread at a time: a watch that reads in
 * one thread and writes in another locks around it.
 */
final class Http2Ledger(idleNanos: Long, stalls: Http2Stalls):
  import Http2Ledger.*

  private var mask = 15
  private var ids = new Array[Int](16)
  private var windows = new Array[Long](16)
  private var flags = new Array[Byte](16)
  // When the answer was first seen waiting for window (System.nanoTime), 0 when it is not; the bytes sent since
  private var since = new Array[Long](16)
  private var sent = new Array[Long](16)
  private var size = 0
  private var counted = 0

  private var connectionWindow = DefaultWindow
  private var initialWindow = DefaultWindow
  private var lastStream = 0
  private var progress = 0L
  private var seenProgress = -1L
  private var quietSince = 0L
  private var stalled = new Array[Int](8)

  /** The streams open: opened by the client, and neither answered whole nor reset. */
  def open: Int = size

  /** The client's frame `in`, just read whole (its reader keeps SETTINGS and WINDOW_UPDATE payloads). */
  def client(in: Reader): Unit = in.kind match
    case Headers => clientHeaders(in.stream)
    case Continuation => progress += 1
    case Data => clientData(in.length)
    case RstStream => clientReset(in.stream)
    case WindowUpdate if in.fragmentSize == 4 => clientWindowUpdate(in.stream, int(in.fragment, 0) & 0x7fffffff)
    case Settings if (in.flags & Ack) == 0 =>
      var at = 0
      while at + 6 <= in.fragmentSize do
        if ((in.fragment(at) & 0xff) << 8 | (in.fragment(at + 1) & 0xff)) == InitialWindowSize then
          clientInitialWindow(int(in.fragment, at + 2) & 0xffffffffL)
        at += 6
    case _ => ()

  // The same, as a server's layer that decodes the frames itself reports them

  /** The client's HEADERS on `stream`: a new stream opens. */
  def clientHeaders(stream: Int): Unit =
    progress += 1
    if stream > lastStream then
      lastStream = stream
      if slotOf(stream) < 0 then insert(stream)

  /** The client's DATA of `length` bytes (padding included). */
  def clientData(length: Int): Unit = if length > 0 then progress += 1

  /** The client reset `stream`. */
  def clientReset(stream: Int): Unit = remove(stream)

  /** The client's WINDOW_UPDATE: `increment` more bytes on `stream`, or on the connection for stream 0. */
  def clientWindowUpdate(stream: Int, increment: Int): Unit =
    if stream == 0 then connectionWindow += increment
    else
      val slot = slotOf(stream)
      if slot >= 0 then windows(slot) += increment

  /**
   * The client's SETTINGS_INITIAL_WINDOW_SIZE: every open stream's window changes by the difference (RFC 9113
   * §6.9.2).
   */
  def clientInitialWindow(value: Long): Unit =
    val delta = value - initialWindow
    initialWindow = value
    var i = 0
    while i <= mask do
      if ids(i) != 0 then windows(i) += delta
      i += 1

  /** The server's frame `out`, just written whole. */
  def server(out: Reader): Unit = out.kind match
    case Headers =>
      progress += 1
      if (out.flags & EndStream) != 0 then remove(out.stream)
      else
        val slot = slotOf(out.stream)
        if slot >= 0 then flags(slot) = (flags(slot) | Answering).toByte
    case Data =>
      connectionWindow -= out.length
      if out.length > 0 then progress += 1
      if (out.flags & EndStream) != 0 then remove(out.stream)
      else
        val slot = slotOf(out.stream)
        if slot >= 0 then
          windows(slot) -= out.length
          sent(slot) += out.length
    case RstStream => remove(out.stream)
    case _ => ()

  /**
   * Takes the client's settings from the server's layer, for a watch that begins after they passed: its initial
   * window for streams, and the connection's window now.
   */
  def adopt(initialWindow: Long, connectionWindow: Long): Unit =
    this.initialWindow = initialWindow
    this.connectionWindow = connectionWindow

  /** A stream the server's layer has open, which the watch did not see open, with its window now. */
  def opened(stream: Int, window: Long): Unit =
    if slotOf(stream) < 0 then
      insert(stream)
      windows(slotOf(stream)) = window
      if stream > lastStream then lastStream = stream

  /** The server has ended `stream` without a frame the ledger reads (a stream its watch refused itself). */
  def closed(stream: Int): Unit = remove(stream)

  /**
   * Looks at the answers at `now`: each stalled for `idleNanos` is given to `reset`, then, while the server holds more
   * stalled answers than its bound, the longest stalled here. Each is forgotten as it is given: the server resets it.
   */
  def check(now: Long, reset: IntConsumer): Unit =
    var n = 0
    var i = 0
    while i <= mask do
      if ids(i) != 0 && (flags(i) & Answering) != 0 then
        if math.min(windows(i), connectionWindow) >= MinWindow then settle(i)
        else if since(i) != 0L && sent(i) >= Progress then
          // Progress: its clock starts again, and it holds nothing of the bound's
          settle(i)
          since(i) = now
        else
          if since(i) == 0L then
            since(i) = now
            sent(i) = 0L
          if (flags(i) & Counted) == 0 then
            flags(i) = (flags(i) | Counted).toByte
            counted += 1
            stalls.add()
          if idleNanos > 0 && now - since(i) >= idleNanos then
            if n == stalled.length then stalled = java.util.Arrays.copyOf(stalled, n * 2)
            stalled(n) = ids(i)
            n += 1
      i += 1
    while n > 0 do
      n -= 1
      give(stalled(n), reset)
    while counted > 0 && stalls.over do give(ids(longestStalled()), reset)

  /** Whether the connection has been idle for `idleNanos` at `now`; each call is a look at it, a few per deadline. */
  def idle(now: Long): Boolean =
    if size > 0 || progress != seenProgress then
      seenProgress = progress
      quietSince = now
      false
    else idleNanos > 0 && now - quietSince >= idleNanos

  /** The connection has ended: its stalled answers are no longer the server's. */
  def close(): Unit =
    stalls.release(counted)
    counted = 0

  private def give(stream: Int, reset: IntConsumer): Unit =
    remove(stream)
    reset.accept(stream)

  private def longestStalled(): Int =
    var found = -1
    var i = 0
    while i <= mask do
      if ids(i) != 0 && (flags(i) & Counted) != 0 && (found < 0 || since(i) < since(found)) then found = i
      i += 1
    found

  // Not stalled (any more): its clock stops, and the server's count lets it go
  private def settle(i: Int): Unit =
    since(i) = 0L
    sent(i) = 0L
    if (flags(i) & Counted) != 0 then
      flags(i) = (flags(i) & ~Counted).toByte
      counted -= 1
      stalls.release(1)

  private def home(stream: Int): Int =
    val h = stream * 0x9e3779b9
    (h ^ (h >>> 16)) & mask

  private def slotOf(stream: Int): Int =
    var i = home(stream)
    while ids(i) != 0 do
      if ids(i) == stream then return i
      i = (i + 1) & mask
    -1

  private def insert(stream: Int): Unit =
    if (size + 1) * 2 > mask + 1 then grow()
    var i = home(stream)
    while ids(i) != 0 do i = (i + 1) & mask
    ids(i) = stream
    windows(i) = initialWindow
    flags(i) = 0
    since(i) = 0L
    sent(i) = 0L
    size += 1

  // Linear probing's deletion: each entry after the hole that may move back into it does, so lookups still find it
  private def remove(stream: Int): Unit =
    val slot = slotOf(stream)
    if slot >= 0 then
      settle(slot)
      var hole = slot
      var j = (slot + 1) & mask
      while ids(j) != 0 do
        val h = home(ids(j))
        val stays = if hole <= j then h > hole && h <= j else h > hole || h <= j
        if !stays then
          move(j, hole)
          hole = j
        j = (j + 1) & mask
      ids(hole) = 0
      size -= 1

  private def move(from: Int, to: Int): Unit =
    ids(to) = ids(from)
    windows(to) = windows(from)
    flags(to) = flags(from)
    since(to) = since(from)
    sent(to) = sent(from)

  private def grow(): Unit =
    val (oldIds, oldWindows, oldFlags, oldSince, oldSent) = (ids, windows, flags, since, sent)
    val capacity = (mask + 1) * 2
    mask = capacity - 1
    ids = new Array[Int](capacity)
    windows = new Array[Long](capacity)
    flags = new Array[Byte](capacity)
    since = new Array[Long](capacity)
    sent = new Array[Long](capacity)
    var i = 0
    while i < oldIds.length do
      if oldIds(i) != 0 then
        var j = home(oldIds(i))
        while ids(j) != 0 do j = (j + 1) & mask
        ids(j) = oldIds(i)
        windows(j) = oldWindows(i)
        flags(j) = oldFlags(i)
        since(j) = oldSince(i)
        sent(j) = oldSent(i)
      i += 1

object Http2Ledger:
  /** A window under this many bytes leaves an answer waiting for its client: a frame's worth can't go out. */
  val MinWindow = 1024L

  /** Bytes of a waiting answer that must go out within each idle timeout for it to count as taken. */
  val Progress = 16_384L

  /**
   * How often a watch calls [[Http2Ledger.check]] and [[Http2Ledger.idle]]: a quarter of the shorter deadline
   * ([[Http2Frames.deadlineTick]]), at most a second, so that a server past its stalled-answer bound acts within one.
   */
  def tick(idleNanos: Long, headNanos: Long): Long =
    val deadlines = deadlineTick(idleNanos, headNanos)
    if deadlines == 0 then 1_000_000_000L else math.min(deadlines, 1_000_000_000L)

  private val DefaultWindow = 65_535L
  private val InitialWindowSize = 0x4
  private val Answering: Byte = 1
  private val Counted: Byte = 2

/**
 * The answers a whole server holds for clients that stopped taking them, across its HTTP/2 connections: each costs a
 * chunk of its body and, for a file, an open descriptor. Past `max`, connections reset their longest stalled answers.
 */
final class Http2Stalls(val max: Int):
  private val count = java.util.concurrent.atomic.AtomicInteger()

  /** Stalled answers held now. */
  def held: Int = count.get

  def add(): Unit = count.incrementAndGet()
  def release(n: Int): Unit = if n > 0 then count.addAndGet(-n)

  /** Whether more than `max` are held. */
  def over: Boolean = count.get > max
