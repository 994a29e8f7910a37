package rapier.cats

import cats.effect.Async
import fs2.{Chunk, Pipe, Pull, Stream}
import org.slf4j.LoggerFactory
import rapier.server.spi.{EventLoop, WebSocketChannel, WebSocketRelay, WebSocketRunner}
import rapier.{EndpointOutput, WebSocketCodec}

import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.ExecutionContext
import scala.util.control.NonFatal

/**
 * WebSockets whose logic is an fs2 `Pipe[F, In, Out]`: the client's messages in, the server's out. The pipe runs as a
 * fiber of its own, started in the endpoint's effect and run on the connection's event loop, as a request's logic is
 * up to its first asynchronous boundary (`docs/adr/0008`): a message reaches the pipe, and what the pipe emits reaches
 * the connection, without a hop between threads (what blocks belongs in `F.blocking`, as anywhere in cats-effect; what
 * waits — a timer, another fiber — comes back to the loop). Its input stream asks the connection for one message each
 * time it is pulled, and each message it emits is written before the next is pulled. Nothing stands between the frames
 * and the pipe: no queue, no Reactive Streams, no stage per message.
 *
 * The pipe's stream ending closes the WebSocket normally (1000), failing closes it with 1011, and the connection
 * ending (either side's close, a broken connection, the server stopping) interrupts it, its finalizers run. A pipe
 * that drops its input (`_ => Stream(...)` after a first pull, `take(n)`) has the client's later messages read and
 * dropped, so that its pings and its close are still answered; until the pipe first pulls its input, the connection is
 * not read at all.
 */
final class Fs2WebSocket[F[_]](using F: Async[F]) extends WebSocketRunner[Pipe[F, Any, Any]]:
  def name: String = "fs2.Pipe[F, In, Out]"

  def relay(output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: Pipe[F, Any, Any]): WebSocketRunner.Started =
    val relay = Fs2WebSocket.Relay[F](output, pipe)
    WebSocketRunner.Started(relay, F.void(F.start(relay.run)))

  /** Typed by its messages. */
  def typed[In, Out]: WebSocketRunner[Pipe[F, In, Out]] = this.asInstanceOf[WebSocketRunner[Pipe[F, In, Out]]]

private[rapier] object Fs2WebSocket:
  private val log = LoggerFactory.getLogger(classOf[Fs2WebSocket[?]])

  /**
   * The pipe `relay` runs, if it is one of these runners' relays, for a backend whose own WebSockets are fs2 streams
   * of the endpoint's effect to run in them itself: the relay is then over, its fiber ended without having run. Null
   * for any other relay.
   */
  def takeOver[F[_]](relay: WebSocketRelay): Pipe[F, Any, Any] | Null = relay match
    case r: Relay[?] => r.takeOver().asInstanceOf[Pipe[F, Any, Any]]
    case _ => null

  /**
   * A connection's loop as an execution context; once the loop has stopped, `rest` runs what is left (a pipe's
   * finalizers), which the loop would refuse.
   */
  private def onLoop(loop: EventLoop, rest: ExecutionContext): ExecutionContext = new ExecutionContext:
    def execute(task: Runnable): Unit =
      try loop.execute(task)
      catch case _: RejectedExecutionException => rest.execute(task)
    def reportFailure(cause: Throwable): Unit = log.error("A WebSocket's pipe failed on its connection's loop", cause)

  /**
   * Waits for `register`'s callback; cancelable, the callback then ignored (`async_` is not: a fiber interrupted while
   * it waits would wait on).
   */
  private def waitFor[F[_], A](register: (Either[Throwable, A] => Unit) => Unit)(using F: Async[F]): F[A] =
    F.async(cb => F.delay { register(cb); Some(F.unit) })

  /**
   * One WebSocket's pipe on its connection. The fiber registers a callback, then asks the loop; the loop answers it
   * (`received`, `written`, `ended`): one callback of each kind waits at a time, as the pipe pulls one message and
   * writes one at a time.
   */
  private final class Relay[F[_]](output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: Pipe[F, Any, Any])(using
      F: Async[F]
  ) extends WebSocketRelay:
    private val in = output.in.asInstanceOf[WebSocketCodec[Any]]
    private val out = output.out.asInstanceOf[WebSocketCodec[Any]]

    private val attached = OnceSignal[Unit]()
    private val over = OnceSignal[Unit]()
    // Set by `start`, before `attached` fires
    @volatile private var channel: WebSocketChannel = null
    @volatile private var loop: EventLoop = null
    // Touched on the loop only
    private var closed = false
    private var inputDropped = false
    private var asked = false
    // The pipe's pull and write waiting for the loop
    private val pulling = AtomicReference[(Either[Throwable, Option[Any]] => Unit) | Null](null)
    private val writing = AtomicReference[(Either[Throwable, Unit] => Unit) | Null](null)
    // Set when the connection took a write with no wait for it yet: the write made on the loop went through
    @volatile private var wroteAhead = false

    /**
     * The fiber: waits for the 101 (or the end, if it never comes), runs the pipe on the connection's loop, then closes
     * as it ended.
     */
    def run: F[Unit] = F.flatMap(F.race(attached.await[F], over.await[F])) {
      case Left(_) => F.flatMap(F.executionContext)(rest => F.evalOn(piped, Fs2WebSocket.onLoop(loop, rest)))
      case Right(_) => F.unit
    }

    /**
     * The pipe between the connection's messages and its writes, interrupted when the connection ends: one race for
     * the whole stream, where `interruptWhen` would look at the signal at every step.
     */
    private def piped: F[Unit] =
      val messages = received(next).stream.onFinalize(F.delay(onLoop(() => dropInput())(())))
      val sent = F.race(sendAll(pipe(messages)).stream.compile.drain, over.await[F])
      F.flatMap(F.attempt(sent)) {
        case Right(_) => closing(1000, "")
        case Left(e) =>
          F.flatMap(F.delay(log.error("A WebSocket's stream of messages failed", e)))(_ =>
            closing(1011, "The server failed.")
          )
      }

    /**
     * The client's messages, one asked of the connection each time the pipe pulls, until the end: one step of fs2's
     * per message (`repeatEval` and `unNoneTerminate` would be two stages).
     */
    private def received(next: F[Option[Any]]): Pull[F, Any, Unit] =
      Pull.eval(next).flatMap {
        case Some(message) => Pull.output1(message) >> received(next)
        case None => Pull.done
      }

    /**
     * The pipe's messages written in order, each once the connection can take it: one pull of the pipe's stream per
     * chunk (`foreach` would make a stream of each message).
     */
    private def sendAll(messages: Stream[F, Any]): Pull[F, Nothing, Unit] =
      messages.pull.uncons.flatMap {
        case Some((chunk, rest)) =>
          Pull.eval(sendFrom(chunk, 0)) >> sendAll(rest)
        case None => Pull.done
      }

    private def sendFrom(chunk: Chunk[Any], i: Int): F[Unit] =
      if i >= chunk.size then F.unit
      else if i == chunk.size - 1 then send(chunk(i))
      else F.flatMap(send(chunk(i)))(_ => sendFrom(chunk, i + 1))

    /** The pipe, for a backend to run itself: this relay's fiber ends, and the relay is not started. */
    def takeOver(): Pipe[F, Any, Any] =
      over.fire(())
      pipe

    def start(channel: WebSocketChannel, loop: EventLoop): Unit =
      this.channel = channel
      this.loop = loop
      attached.fire(())

    def received(bytes: Array[Byte], text: Boolean): Unit =
      asked = false
      if !closed then
        val pull = pulling.getAndSet(null)
        if pull == null then askIfWanted() // read for no one: dropped
        else
          val message = WebSocketRelay.decode(in, bytes, text, closeWith)
          pull(Right(if message == null then None else Some(message.value)))

    def written(): Unit =
      val w = writing.getAndSet(null)
      if w != null then w(Right(())) else wroteAhead = true

    def ended(): Unit =
      closed = true
      endPull()
      written()
      over.fire(())

    /** The pull waiting, if any, gets the end of the messages. */
    private def endPull(): Unit =
      val pull = pulling.getAndSet(null)
      if pull != null then pull(Right(None))

    /** The pipe's next message: asked of the connection, answered by `received` (none once the connection ended). */
    private val next: F[Option[Any]] = waitFor[F, Option[Any]] { cb =>
      pulling.set(cb)
      onLoop(() => if closed then endPull() else askIfWanted())(cb(Right(None)))
    }

    /**
     * Writes a message of the pipe's, and waits until the connection can take the next. On the loop (where the pipe
     * runs) the write is made at once, and a write that went through while it was made (the common case: a connection
     * with room) costs no wait.
     */
    private def send(message: Any): F[Unit] = F.defer {
      val bytes = out.encode(message)
      if loop.inLoop then
        wroteAhead = false
        if !closed then channel.send(bytes, out.text)
        if closed || wroteAhead then F.unit
        else waitFor[F, Unit](cb => if wroteAhead then cb(Right(())) else writing.set(cb))
      else
        waitFor[F, Unit] { cb =>
          writing.set(cb)
          onLoop(() => if closed then written() else channel.send(bytes, out.text))(cb(Right(())))
        }
    }

    private def dropInput(): Unit =
      inputDropped = true
      askIfWanted()

    // The connection is read while the pipe waits for a message, or, once its input is dropped, to keep control
    // frames coming
    private def askIfWanted(): Unit =
      if !asked && !closed && (pulling.get != null || inputDropped) then
        asked = true
        channel.requestMessage()

    private val closeWith: (Int, String) => Unit = close

    private def close(code: Int, reason: String): Unit =
      if !closed then
        channel.close(code, reason)
        ended()

    /** Runs `task` on the loop; `stopped` if the loop has stopped (the connection with it). */
    private def onLoop(task: Runnable)(stopped: => Unit): Unit =
      try if loop.inLoop then task.run() else loop.execute(task)
      catch case NonFatal(_) => stopped

    private def closing(code: Int, reason: String): F[Unit] = F.delay(onLoop(() => close(code, reason))(()))
