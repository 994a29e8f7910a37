package rapier.server.spi

import rapier.{EndpointOutput, WebSocketCodec}

import org.slf4j.LoggerFactory

import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.ExecutionContext
import scala.util.control.NonFatal

/**
 * The connection's side of a WebSocket whose pipe runs as a fiber of an effect module's (fs2's, ZIO's): what the
 * fiber asks of the connection and how the connection answers, written once. The module's relay extends it with how
 * its fiber waits — for the 101 ([[attached]]), for the end ([[over]]), for a message ([[askMessage]]), for a write
 * to go through ([[awaitWritten]], [[sendFromElsewhere]]) — each wait a callback this class calls once.
 *
 * The fiber registers a callback, then asks the loop; the loop answers it (`received`, `written`, `ended`): one
 * callback of each kind waits at a time, as the pipe pulls one message and writes one at a time. The connection is
 * read while the pipe waits for a message, or, once its input is dropped ([[inputDropped]]), to keep control frames
 * coming.
 */
abstract class FiberRelay(output: EndpointOutput.WebSocketBody[?, ?, ?]) extends WebSocketRelay:
  private val in = output.in.asInstanceOf[WebSocketCodec[Any]]
  private val out = output.out.asInstanceOf[WebSocketCodec[Any]]

  // Set by `start`, before `attached` is called
  @volatile private var channel: WebSocketChannel | Null = null
  @volatile private var eventLoop: EventLoop | Null = null
  // Touched on the loop only
  private var closed = false
  private var dropped = false
  private var asked = false
  // The pipe's pull and write waiting for the loop
  private val pulling = AtomicReference[(Either[Throwable, Option[Any]] => Unit) | Null](null)
  private val writing = AtomicReference[(Either[Throwable, Unit] => Unit) | Null](null)
  // Set when the connection took a write with no wait for it yet: the write made on the loop went through
  @volatile private var wroteAhead = false

  /** Set once the 101 is written: the fiber may run the pipe, on [[loop]]. */
  protected final val attached = OnceSignal[Unit]()

  /** Set once the connection ended, or the relay is taken over ([[end]]): the fiber stops. */
  protected final val over = OnceSignal[Unit]()

  /** The fiber is to stop, the connection's end or not: a relay handing its pipe to a backend ends it so. */
  protected final def end(): Unit = over.fire(())

  /** The connection's loop, once attached. */
  protected final def loop: EventLoop = eventLoop.nn

  final def start(channel: WebSocketChannel, loop: EventLoop): Unit =
    this.channel = channel
    this.eventLoop = loop
    attached.fire(())

  final def received(bytes: Array[Byte], text: Boolean): Unit =
    asked = false
    if !closed then
      val pull = pulling.getAndSet(null)
      if pull == null then askIfWanted() // read for no one: dropped
      else
        val message = WebSocketRelay.decode(in, bytes, text, closeWith)
        pull(Right(if message == null then None else Some(message.value)))

  final def written(): Unit =
    val w = writing.getAndSet(null)
    if w != null then w(Right(())) else wroteAhead = true

  final def ended(): Unit =
    closed = true
    endPull()
    written()
    end()

  /**
   * Asks the connection for the pipe's next message: `cb` gets it, or None once the connection has ended (or can't
   * be read, its loop stopped).
   */
  protected final def askMessage(cb: Either[Throwable, Option[Any]] => Unit): Unit =
    pulling.set(cb)
    onLoop(() => if closed then endPull() else askIfWanted())(cb(Right(None)))

  /** A message of the pipe's as the connection sends it. */
  protected final def encode(message: Any): Array[Byte] = out.encode(message)

  /**
   * Writes `bytes` at once, on the loop: true when the write went through while it was made (the common case: a
   * connection with room) or the connection is gone, and the fiber goes on with no wait; false when it must wait
   * ([[awaitWritten]]).
   */
  protected final def sendOnLoop(bytes: Array[Byte]): Boolean =
    wroteAhead = false
    if !closed then channel.nn.send(bytes, out.text)
    closed || wroteAhead

  /** After [[sendOnLoop]] answered false: `cb` is called once the connection can take the next message. */
  protected final def awaitWritten(cb: Either[Throwable, Unit] => Unit): Unit =
    if wroteAhead then cb(Right(())) else writing.set(cb)

  /** Writes `bytes` from off the loop: `cb` is called once the connection can take the next message. */
  protected final def sendFromElsewhere(bytes: Array[Byte], cb: Either[Throwable, Unit] => Unit): Unit =
    writing.set(cb)
    onLoop(() => if closed then written() else channel.nn.send(bytes, out.text))(cb(Right(())))

  /** The pipe no longer reads its input: the client's later messages are read and dropped. */
  protected final def inputDropped(): Unit = onLoop { () =>
    dropped = true
    askIfWanted()
  }(())

  /** The pipe ended: closes the WebSocket with `code` (1000 when the stream ended, 1011 when it failed). */
  protected final def closing(code: Int, reason: String): Unit = onLoop(() => close(code, reason))(())

  /** The pull waiting, if any, gets the end of the messages. */
  private def endPull(): Unit =
    val pull = pulling.getAndSet(null)
    if pull != null then pull(Right(None))

  private def askIfWanted(): Unit =
    if !asked && !closed && (pulling.get != null || dropped) then
      asked = true
      channel.nn.requestMessage()

  private val closeWith: (Int, String) => Unit = close

  private def close(code: Int, reason: String): Unit =
    if !closed then
      channel.nn.close(code, reason)
      ended()

  /** Runs `task` on the loop; `stopped` if the loop has stopped (the connection with it). */
  private def onLoop(task: Runnable)(stopped: => Unit): Unit =
    try if loop.inLoop then task.run() else loop.execute(task)
    catch case NonFatal(_) => stopped

object FiberRelay:
  private val log = LoggerFactory.getLogger(classOf[FiberRelay])

  /**
   * A connection's loop as an execution context, for a relay's fiber to run its pipe on: once the loop has stopped,
   * `rest` runs what is left (a pipe's finalizers), which the loop would refuse.
   */
  def onLoop(loop: EventLoop, rest: ExecutionContext): ExecutionContext = new ExecutionContext:
    def execute(task: Runnable): Unit =
      try loop.execute(task)
      catch case _: RejectedExecutionException => rest.execute(task)
    def reportFailure(cause: Throwable): Unit = log.error("A WebSocket's pipe failed on its connection's loop", cause)
