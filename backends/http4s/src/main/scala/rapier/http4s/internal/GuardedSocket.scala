package rapier.http4s.internal

import cats.effect.Async
import cats.effect.std.Semaphore
import fs2.io.net.Socket
import fs2.Chunk
import rapier.server.spi.{FramingGuard, Refusals, RequestBodyException, WebSocketWatch}

import java.nio.charset.StandardCharsets
import scala.concurrent.duration.*

/**
 * A socket whose reads Ember gets through a [[FramingGuard]]: checked heads, re-framed chunked bodies, a refusal as its
 * marker request, then the end of input; a body whose framing broke fails Ember's read with its refusal, which Rapier's
 * body reader answers. A head must arrive whole within `deadline` of its first byte, or it is refused with a 408.
 *
 * Ember reads and writes a connection in turn until it switches protocols, so the guard needs no lock; after a 101
 * (the only write it looks at, awaiting one) reads pass straight through, or, on a WebSocket of Rapier's, through its
 * [[WebSocketWatch]]: a client breaking RFC 6455's rules is sent the close the watch names, in place of whatever Ember
 * would do, and Ember hears of nothing more from it.
 */
private[http4s] final class GuardedSocket[F[_]](
    socket: Socket[F],
    guard: FramingGuard,
    deadline: FiniteDuration,
    private var arrived: (() => Unit) | Null = null,
    h2: GuardedSocket.Http2[F] | Null = null,
    watches: WebSocketWatches | Null = null
)(using F: Async[F])
    extends SocketProxy[F](socket):
  // On a plain connection that may speak h2c, until it is ruled out or chosen: the first bytes, against its preface
  private var sniffing = h2 != null && h2.nn.alpn == null
  private var sniffed: Chunk[Byte] = Chunk.empty
  // Over TLS, whether ALPN's choice is known
  private var alpnKnown = false
  private var prefaceSeen = false
  // What the guard has passed on and Ember has not read yet
  private var pending: Chunk[Byte] = Chunk.empty
  // When (System.nanoTime) the head now arriving was first seen incomplete; 0 when none is.
  private var headSince = 0L
  // After a 101 for a WebSocket of Rapier's: what the client sends is watched, and what Ember writes goes through
  // `watchedWrites`, which sends the close owed once the client broke a rule
  @volatile private var watch: WebSocketWatch | Null = null
  private var breached = false
  @volatile private var watchedWrites: WatchedWrites[F] | Null = null
  // Small pieces (a re-framed chunk's size line, a 1-byte chunk) are copied together into `small`, so that Ember's
  // parser reads few chunks; larger slices, of arrays nothing writes again, are wrapped.
  private var small: Array[Byte] = Array.emptyByteArray
  private var smallSize = 0
  private val out: FramingGuard.Out = (bytes, offset, length) =>
    if length < GuardedSocket.CopyBelow then
      if smallSize + length > small.length then
        small = java.util.Arrays.copyOf(small, math.max(smallSize + length, math.max(256, small.length * 2)))
      System.arraycopy(bytes, offset, small, smallSize, length)
      smallSize += length
    else
      flushSmall()
      pending = pending ++ Chunk.array(bytes, offset, length)

  private def flushSmall(): Unit =
    if smallSize > 0 then
      pending = pending ++ Chunk.array(java.util.Arrays.copyOf(small, smallSize))
      smallSize = 0

  override def read(maxBytes: Int): F[Option[Chunk[Byte]]] =
    if h2 != null && h2.nn.alpn != null && !alpnKnown then
      F.flatMap(h2.nn.alpn.nn) { chosen =>
        alpnKnown = true
        if chosen == "h2" then http2(checkPreface = true) else next(maxBytes)
      }
    else F.defer(next(maxBytes))

  /**
   * The connection, found speaking HTTP/2, served by Rapier's HTTP/2 session within this read, Ember's first: it ends
   * when the connection does, and Ember then sees the end of its input. Ember's timeouts on its read can't cut it
   * short; the server's stop ends it.
   */
  private def http2(checkPreface: Boolean): F[Option[Chunk[Byte]]] =
    val first = pending
    val told = arrived
    pending = Chunk.empty
    arrived = null
    val preface =
      if !checkPreface then F.pure(true)
      else F.map(socket.readN(GuardedSocket.Preface.length))(GuardedSocket.isPreface)
    val served = F.flatMap(preface)(valid => if valid then h2.nn.serve(socket, first, told) else F.unit)
    F.as(F.uncancelable(_ => served), None)

  private def next(maxBytes: Int): F[Option[Chunk[Byte]]] =
    flushSmall()
    if pending.nonEmpty then
      val ready = pending
      pending = Chunk.empty
      F.pure(Some(ready))
    else if guard.failed != null then F.raiseError(RequestBodyException(guard.failed.nn))
    else if guard.closed then F.pure(None)
    else if guard.passing then if watch == null then socket.read(maxBytes) else watched(maxBytes)
    else
      F.flatMap(timed(socket.read(maxBytes))) {
        case None => F.pure(None)
        case Some(chunk) =>
          if arrived != null then
            arrived.nn()
            arrived = null
          if sniffing then sniff(chunk) else feed(chunk)
          if prefaceSeen then http2(checkPreface = false)
          else
            if !sniffing && !guard.headPending then headSince = 0L
            else if headSince == 0L then headSince = System.nanoTime()
            next(maxBytes)
      }

  // The first bytes of a plain connection that may speak h2c: its preface whole makes it HTTP/2, anything else
  // HTTP/1.1, and the bytes go to the guard.
  private def sniff(chunk: Chunk[Byte]): Unit =
    sniffed = sniffed ++ chunk
    val preface = GuardedSocket.Preface
    val n = math.min(sniffed.size, preface.length)
    var i = 0
    while i < n && sniffed(i) == preface(i) do i += 1
    if i == preface.length then
      sniffing = false
      pending = sniffed.drop(preface.length)
      sniffed = Chunk.empty
      prefaceSeen = true
    else if i < n then stopSniffing()

  private def stopSniffing(): Unit =
    sniffing = false
    val bytes = sniffed
    sniffed = Chunk.empty
    feed(bytes)

  // A WebSocket's read, through its watch. On a breach, Ember reads the bytes before the frame that broke a rule, then,
  // at its next read, the server's close is sent, the WebSocket is told (the logic's side ends), and what the client
  // sends is read and dropped until its own close (or the linger's end); then the output ends, and Ember reads the end
  // of input.
  private def watched(maxBytes: Int): F[Option[Chunk[Byte]]] =
    if breached then
      // Not longer than a linger, should Ember's last write wait on a client that doesn't read. The WebSocket's own
      // close, after this one, is dropped.
      val breach = watch.nn.broken.nn
      val owed = watchedWrites.nn.close(Chunk.array(breach.frame))
      val told = F.delay(watches.nn.broken(watch.nn, breach.code, breach.reason))
      val closed = F.productR(F.timeoutTo(owed, Refusals.LingerMillis.millis, F.unit))(told)
      // The connection's end, sent at once: Ember may not end a WebSocket whose client's close it did not read
      val ended = F.void(F.attempt(socket.endOfOutput))
      F.as(F.productR(F.productR(closed)(dropUntilClosed))(ended), None)
    else
      F.map(socket.read(maxBytes)) {
        case Some(chunk) =>
          val w = watch.nn
          val before = w.keptRules
          val slice = chunk.toArraySlice
          if w.feed(slice.values, slice.offset, slice.length) == null then Some(chunk)
          else
            breached = true
            Some(chunk.take((w.keptRules - before).toInt))
        case None => None
      }

  private def dropUntilClosed: F[Unit] =
    val w = watch.nn
    val answered = fs2.Stream
      .repeatEval(if w.clientClosed then F.pure(None) else socket.read(GuardedSocket.DropSize))
      .unNoneTerminate
      .foreach(c => F.delay { val s = c.toArraySlice; w.feed(s.values, s.offset, s.length); () })
    Bodies.linger(answered)

  private def feed(chunk: Chunk[Byte]): Unit =
    val slice = chunk.toArraySlice
    guard.feed(slice.values, slice.offset, slice.length, out)

  // A read while a head is pending ends at its deadline, the head then refused.
  private def timed(read: F[Option[Chunk[Byte]]]): F[Option[Chunk[Byte]]] =
    if headSince == 0L then read
    else
      val left = deadline.toNanos - (System.nanoTime() - headSince)
      val refuse = F.delay {
        if sniffing then stopSniffing()
        guard.refuse(Refusals.headTimeout(deadline), out)
        Option(Chunk.empty[Byte])
      }
      if left <= 0L then refuse else F.timeoutTo(read, left.nanos, refuse)

  override def write(bytes: Chunk[Byte]): F[Unit] =
    if guard.awaitingVerdict then
      F.flatMap(F.delay {
        val switched = GuardedSocket.switches(bytes)
        guard.responded(switched, out)
        if watches != null then
          val expected = watches.nn.take(socket.peerAddress)
          if switched then watch = expected
        watch != null
      }) { watching =>
        val watched = if watching then F.map(Semaphore[F](1))(s => watchedWrites = WatchedWrites(socket, s)) else F.unit
        F.productR(watched)(socket.write(bytes))
      }
    else if watchedWrites != null then watchedWrites.nn.write(bytes)
    else socket.write(bytes)

  /**
   * After a refusal, once Ember has written its response: the output ended, and what the client still sends (the rest
   * of a head too large, over TLS in a record not read yet) read and dropped until it closes, for
   * `Refusals.LingerMillis` at most. Closed with bytes unread, the connection would be reset under the response.
   */
  override def beforeClose: F[Unit] =
    val forget = if watches == null then F.unit else F.delay { watches.nn.take(socket.peerAddress); () }
    if !guard.closed && guard.failed == null then forget
    else F.productR(forget)(Bodies.linger(fs2.Stream.exec(F.void(F.attempt(socket.endOfOutput))) ++ socket.reads))

private[http4s] object GuardedSocket:
  private val CopyBelow = 4096
  private val DropSize = 8192
  // RFC 9113 §3.4: what a client sends first on an HTTP/2 connection
  private val Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII)

  private def isPreface(bytes: Chunk[Byte]): Boolean =
    bytes.size == Preface.length && Preface.indices.forall(i => bytes(i) == Preface(i))

  /**
   * How a connection may come to speak HTTP/2, and what serves it then: as ALPN chose over TLS (`alpn`, asked before
   * the first read), or by its preface on a plain connection (h2c, `alpn` null). `serve` takes the connection past its
   * preface, the bytes already read after it, and what to tell once a frame has come (or null).
   */
  final class Http2[F[_]](
      val alpn: F[String] | Null,
      val serve: (Socket[F], Chunk[Byte], (() => Unit) | Null) => F[Unit]
  )

  private val Switching = "HTTP/1.1 101".getBytes(StandardCharsets.US_ASCII)

  // Whether a response's first write switches protocols.
  private def switches(bytes: Chunk[Byte]): Boolean =
    bytes.size >= Switching.length && Switching.indices.forall(i => bytes(i) == Switching(i))
