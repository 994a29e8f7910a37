package rapier.http4s.internal

import cats.effect.Async
import fs2.{Chunk, Pipe, Pull, Stream}
import org.http4s.websocket.WebSocketFrame
import rapier.flow.DaemonScheduler
import rapier.server.spi.{WebSocketWatch, EventLoop, MessageJoiner, WebSocketChannel, WebSocketIdle, WebSocketUpgrade}
import scodec.bits.ByteVector

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue, ScheduledFuture}
import java.util.concurrent.TimeUnit
import scala.concurrent.ExecutionContext
import scala.util.control.NonFatal

/**
 * A WebSocket on http4s's Ember, once upgraded: the `send` stream and `receive` pipe given to Ember's
 * `WebSocketBuilder2`, its defragmenting off. Ember keeps the frames, answers pings and the client's close; this
 * channel pulls a frame from Ember only while the relay wants a message, joins fragments into messages under the
 * endpoint's limit (1009 past it), checks a text message's UTF-8 as its frames come (1007), keeps the endpoint's
 * idle timeout (1001) and writes the relay's messages one at a time, the relay hearing `written` when Ember asks for
 * the next.
 *
 * Its state is touched on its own loop: the tasks of one WebSocket run one at a time, in order, on the effect's
 * execution context.
 */
private[http4s] final class Http4sWebSocket[F[_]](
    upgrade: WebSocketUpgrade,
    context: ExecutionContext,
    open: Http4sWebSocket.Open
)(using F: Async[F])
    extends WebSocketChannel,
      EventLoop,
      Http4sWebSocket.Stoppable:
  private val relay = upgrade.relay
  private val limit = upgrade.output.maxMessageSize
  private val idle = WebSocketIdle(upgrade.output.idleTimeout)

  // The loop: tasks in order, one at a time
  private val tasks = ConcurrentLinkedQueue[Runnable]()
  private val queued = AtomicInteger()
  @volatile private var running: Thread | Null = null

  // Touched on the loop only
  private var started = false
  private var ended = false
  private var closeSent = false
  private var wanted = false
  private var outbox = List.empty[WebSocketFrame]
  private var inFlight = false
  private val message = MessageJoiner(limit, whole, closing)
  private var idleTimer: ScheduledFuture[?] | Null = null
  // Ember's pull of the next frame to write, and the reader's wait for a message to be wanted
  private var writer: (Either[Throwable, Option[WebSocketFrame]] => Unit) | Null = null
  private var reader: (Either[Throwable, Unit] => Unit) | Null = null

  def inLoop: Boolean = running eq Thread.currentThread

  def execute(task: Runnable): Unit =
    tasks.add(task)
    if queued.getAndIncrement() == 0 then context.execute(() => drain())

  private def drain(): Unit =
    var more = true
    var n = 0
    running = Thread.currentThread
    try
      while more && n < 64 do
        try tasks.poll().run()
        catch case NonFatal(e) => context.reportFailure(e)
        n += 1
        more = queued.decrementAndGet() > 0
    finally running = null
    // Still the loop's turn (no `execute` has started another): the rest after others have run
    if more then context.execute(() => drain())

  /** Waits for `register`'s callback, which the loop calls; cancelable, the callback then ignored. */
  private def onLoopWait[A](register: (Either[Throwable, A] => Unit) => Unit): F[A] =
    F.async(cb => F.delay { execute(() => register(cb)); Some(F.unit) })

  /** What Ember writes: the relay's messages, one at a time, then the close, then nothing. */
  val send: Stream[F, WebSocketFrame] =
    Stream
      .repeatEval(onLoopWait[Option[WebSocketFrame]] { cb =>
        begin()
        writer = cb
        if inFlight then
          inFlight = false
          if !closeSent then relay.written()
        flush()
      })
      .unNoneTerminate
      .onFinalize(F.delay(execute(() => end())))

  /**
   * What Ember reads: frames taken only while a message is wanted (or the client's close awaited after ours), as many
   * of the chunk Ember decoded as one turn of the loop can take: a message in a thousand fragments costs one hop to
   * the loop, not one per fragment, and Ember's chunk is let go as soon as it is taken.
   */
  val receive: Pipe[F, WebSocketFrame, Unit] = frames =>
    def next(rest: Stream[F, WebSocketFrame]): Pull[F, Unit, Unit] =
      rest.pull.uncons.flatMap {
        case Some((chunk, more)) => take(chunk, 0, more)
        case None => Pull.done
      }
    def take(chunk: Chunk[WebSocketFrame], from: Int, more: Stream[F, WebSocketFrame]): Pull[F, Unit, Unit] =
      Pull
        .eval(onLoopWait[Int] { cb =>
          begin()
          if wanted || closeSent then cb(Right(receivedFrom(chunk, from)))
          else reader = _ => cb(Right(receivedFrom(chunk, from)))
        })
        .flatMap(taken => if taken < chunk.size then take(chunk, taken, more) else next(more))
    next(frames).stream.onFinalize(F.delay(execute(() => end())))

  /** Takes the frames of `chunk` from `from` on while a message is wanted: the index of the first not taken. */
  private def receivedFrom(chunk: Chunk[WebSocketFrame], from: Int): Int =
    var i = from
    while i < chunk.size && (wanted || closeSent) do
      received(chunk(i))
      i += 1
    i

  /** Ember runs the streams once the 101 is written: the relay starts with the first of them. */
  private def begin(): Unit =
    if !started then
      started = true
      open.add(this)
      if idle.enabled then watchIdle(idle.nanos)
      relay.start(this, this)

  private def received(frame: WebSocketFrame): Unit =
    idle.touch()
    if !closeSent then
      frame match
        case f: WebSocketFrame.Text => message.add(f.data.toArrayUnsafe, text = true, f.last)
        case f: WebSocketFrame.Binary => message.add(f.data.toArrayUnsafe, text = false, f.last)
        case f: WebSocketFrame.Continuation => message.add(f.data.toArrayUnsafe, message.text, f.last)
        case _ => () // pings answered, the close handled, by Ember

  private def whole(bytes: Array[Byte], text: Boolean): Unit =
    wanted = false
    relay.received(bytes, text)

  def requestMessage(): Unit =
    if !wanted then
      wanted = true
      wake()

  /** The reader waiting for a message to be wanted goes on. */
  private def wake(): Unit =
    val r = reader
    if r != null then
      reader = null
      r(Right(()))

  def send(bytes: Array[Byte], text: Boolean): Unit =
    if !closeSent then
      idle.touch()
      val payload = ByteVector.view(bytes)
      outbox = outbox :+ (if text then WebSocketFrame.Text(payload, true) else WebSocketFrame.Binary(payload, true))
      flush()

  def close(code: Int, reason: String): Unit =
    if !closeSent then
      closeSent = true
      val frame = WebSocketFrame.Close(code, reason).getOrElse(WebSocketFrame.Close())
      outbox = outbox :+ frame
      flush()
      // The client's close must come through, whatever the relay still wants
      wake()

  /** Ember's pull waiting, if any, gets the next frame to write; none once the close is written. */
  private def flush(): Unit =
    val w = writer
    if w != null then
      outbox match
        case frame :: rest =>
          writer = null
          outbox = rest
          inFlight = !frame.isInstanceOf[WebSocketFrame.Close]
          w(Right(Some(frame)))
        case Nil =>
          if closeSent || ended then
            writer = null
            w(Right(None))

  /** A close of the channel's own (not the relay's): the relay hears of it. */
  private def closing(code: Int, reason: String): Unit =
    close(code, reason)
    relay.ended()

  /** The server is stopping: closed with 1001, on the loop. */
  def goingAway(): Unit = execute(() => if !closeSent then closing(WebSocketIdle.Code, WebSocketIdle.GoingAway))

  def broken(code: Int, reason: String): Unit = execute(() => if !closeSent then closing(code, reason))

  /** The connection ended: the streams on both sides end with it. */
  private def end(): Unit =
    if !ended then
      ended = true
      closeSent = true
      open.remove(this)
      if idleTimer != null then idleTimer.nn.cancel(false)
      flush()
      wake()
      relay.ended()

  private def watchIdle(nanos: Long): Unit =
    idleTimer =
      Http4sWebSocket.timers.schedule((() => execute(() => checkIdle())): Runnable, nanos, TimeUnit.NANOSECONDS)

  private def checkIdle(): Unit =
    idleTimer = null
    if !closeSent then
      val left = idle.left
      if left <= 0 then closing(WebSocketIdle.Code, WebSocketIdle.Idle) else watchIdle(left)

private[http4s] object Http4sWebSocket:
  /**
   * The idle timeouts of every WebSocket: one daemon thread that only checks the time and hands a close to its
   * WebSocket.
   */
  private[internal] lazy val timers = DaemonScheduler("rapier-http4s-websocket-timer")

  /** A WebSocket the server's stop closes. */
  trait Stoppable:
    /** The server is stopping: closed with 1001. */
    def goingAway(): Unit

    /** The client broke a rule and the connection's watch has closed with `code`: the logic's side ends. */
    def broken(code: Int, reason: String): Unit

    /** What watches its connection's frames, on Rapier's own server. */
    @volatile var watch: WebSocketWatch | Null = null

  /** The open WebSockets of a server, closed with 1001 when it stops. */
  final class Open:
    private val sockets = ConcurrentHashMap.newKeySet[Stoppable]()
    def add(socket: Stoppable): Unit = sockets.add(socket)
    def remove(socket: Stoppable): Unit = sockets.remove(socket)
    def closeAll(): Unit = sockets.forEach(_.goingAway())

    /** The open WebSocket `watch` is for, told that its client broke a rule; none if it has ended. */
    def broken(watch: WebSocketWatch, code: Int, reason: String): Unit =
      sockets.forEach(s => if s.watch eq watch then s.broken(code, reason))
