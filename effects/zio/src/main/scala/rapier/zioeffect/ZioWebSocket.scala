package rapier.zioeffect

import org.slf4j.LoggerFactory
import rapier.EndpointOutput
import rapier.server.spi.{FiberRelay, OnceSignal, WebSocketRunner}
import zio.stream.ZStream
import zio.{Chunk, Exit, IO, Task, UIO, ZIO}

import java.util.concurrent.Flow

/** A WebSocket's logic in ZIO: the client's messages in, the server's out. */
type ZioPipe[In, Out] = ZStream[Any, Throwable, In] => ZStream[Any, Throwable, Out]

/**
 * WebSockets whose logic is a [[ZioPipe]]: the pipe runs as a fiber of its own, started in the endpoint's effect and
 * run on the connection's event loop, as a request's logic is up to its first asynchronous boundary: a message reaches
 * the pipe, and what the pipe emits reaches the connection, without a hop between threads (what blocks belongs in
 * `ZIO.attemptBlocking`; what waits — a timer, another fiber — comes back to the loop). Its input stream asks the
 * connection for one message each time it is pulled, and each message it emits is written before the next is pulled.
 * No queue, no Reactive Streams, one stream stage for the input.
 *
 * The pipe's stream ending closes the WebSocket normally (1000), failing closes it with 1011, and the connection
 * ending (either side's close, a broken connection, the server stopping) interrupts it, its finalizers run. A pipe
 * that drops its input has the client's later messages read and dropped, so that its pings and its close are still
 * answered; until the pipe first pulls its input, the connection is not read at all.
 */
object ZioWebSocket extends WebSocketRunner[ZioPipe[Any, Any]]:
  private val log = LoggerFactory.getLogger(getClass)

  def name: String = "ZStream[Any, Throwable, In] => ZStream[Any, Throwable, Out]"

  def relay(output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: ZioPipe[Any, Any]): WebSocketRunner.Started =
    val relay = Relay(output, pipe)
    WebSocketRunner.Started(relay, ZioRunner.forkDaemon(relay.run))

  /** Typed by its messages. */
  def typed[In, Out]: WebSocketRunner[ZioPipe[In, Out]] = this.asInstanceOf[WebSocketRunner[ZioPipe[In, Out]]]

  /**
   * A client's pipe: the caller's stream published to the WebSocket as it asks for messages, the server's read one
   * at a time as the stream is pulled. The server's messages ending ends the caller's stream, its fiber interrupted.
   */
  override def forClient: Option[(Flow.Publisher[Any] => Flow.Publisher[Any]) => ZioPipe[Any, Any]] =
    Some(opened =>
      messages =>
        ZStream.unwrapScoped(
          for
            runtime <- ZIO.runtime[Any]
            sent <-
              ZIO.acquireRelease(ZIO.succeed(ZioFlow.StreamPublisher(messages, runtime)))(p => ZIO.succeed(p.stop()))
          yield ZioFlow.stream(opened(sent))
        )
    )

  /** One WebSocket's pipe on its connection, its fiber waiting on the connection's answers (see [[FiberRelay]]). */
  private final class Relay(output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: ZioPipe[Any, Any])
      extends FiberRelay(output):
    /**
     * The fiber: waits for the 101 (or the end, if it never comes), runs the pipe on the connection's loop, then closes
     * as it ended.
     */
    def run: UIO[Unit] = await(attached).raceEither(await(over)).flatMap {
      case Left(_) =>
        ZIO.executor.flatMap(rest => piped.onExecutionContext(FiberRelay.onLoop(loop, rest.asExecutionContext)))
      case Right(_) => ZIO.unit
    }

    /** The pipe between the connection's messages and its writes, interrupted when the connection ends. */
    private def piped: UIO[Unit] =
      val messages = ZStream.repeatZIOOption(next).ensuring(ZIO.succeed(inputDropped()))
      val sent = pipe(messages).runForeachChunk(sendAll).raceFirst(await(over))
      sent.foldCauseZIO(
        cause =>
          ZIO.succeed {
            log.error("A WebSocket's stream of messages failed", cause.squashTrace)
            closing(1011, "The server failed.")
          },
        _ => ZIO.succeed(closing(1000, ""))
      )

    /** The pipe's next message: asked of the connection, answered by `received` (none once the connection ended). */
    private val next: IO[Option[Throwable], Any] = ZIO.async { cb =>
      askMessage {
        case Right(Some(message)) => cb(Exit.succeed(message))
        case Right(None) => cb(Exit.fail(None))
        case Left(e) => cb(Exit.fail(Some(e)))
      }
    }

    /** Waits for `signal`; interruptible, the callback then ignored. */
    private def await(signal: OnceSignal[Unit]): UIO[Unit] = ZIO.async(cb => signal.register(_ => cb(ZIO.unit)))

    private def sendAll(chunk: Chunk[Any]): Task[Unit] = sendFrom(chunk, 0)

    private def sendFrom(chunk: Chunk[Any], i: Int): Task[Unit] =
      if i >= chunk.size then ZIO.unit
      else if i == chunk.size - 1 then send(chunk(i))
      else send(chunk(i)).flatMap(_ => sendFrom(chunk, i + 1))

    /**
     * Writes a message of the pipe's, and waits until the connection can take the next. On the loop (where the pipe
     * runs) the write is made at once, and a write that went through while it was made costs no wait.
     */
    private def send(message: Any): Task[Unit] = ZIO.suspend {
      val bytes = encode(message)
      if loop.inLoop then
        if sendOnLoop(bytes) then ZIO.unit else ZIO.async[Any, Nothing, Unit](cb => awaitWritten(_ => cb(ZIO.unit)))
      else ZIO.async[Any, Nothing, Unit](cb => sendFromElsewhere(bytes, _ => cb(ZIO.unit)))
    }
