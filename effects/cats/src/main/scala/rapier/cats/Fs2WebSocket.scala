package rapier.cats

import cats.effect.Async
import fs2.interop.flow
import fs2.{Chunk, Pipe, Pull, Stream}
import org.slf4j.LoggerFactory
import rapier.server.spi.{FiberRelay, WebSocketRelay, WebSocketRunner}
import rapier.EndpointOutput

import java.util.concurrent.Flow

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

  /**
   * A client's pipe: the caller's stream published to the WebSocket as it asks for messages, the server's read one
   * at a time (a chunk of one: a message is read from the connection only when the stream pulls it). The server's
   * messages ending ends the caller's stream, which is then no longer pulled.
   */
  override def forClient: Option[(Flow.Publisher[Any] => Flow.Publisher[Any]) => Pipe[F, Any, Any]] =
    Some(opened =>
      messages =>
        // The publisher's release waits for the caller's stream, which the server's end interrupts first
        Stream.eval(F.deferred[Either[Throwable, Unit]]).flatMap { over =>
          Stream.resource(flow.toPublisher(messages.interruptWhen(over))).flatMap { sent =>
            flow.fromPublisher[F](opened(sent), chunkSize = 1).onFinalize(F.void(over.complete(Right(()))))
          }
        }
    )

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
   * Waits for `register`'s callback; cancelable, the callback then ignored (`async_` is not: a fiber interrupted while
   * it waits would wait on).
   */
  private def waitFor[F[_], A](register: (Either[Throwable, A] => Unit) => Unit)(using F: Async[F]): F[A] =
    F.async(cb => F.delay { register(cb); Some(F.unit) })

  /** One WebSocket's pipe on its connection, its fiber waiting on the connection's answers (see [[FiberRelay]]). */
  private final class Relay[F[_]](output: EndpointOutput.WebSocketBody[?, ?, ?], pipe: Pipe[F, Any, Any])(using
      F: Async[F]
  ) extends FiberRelay(output):
    /**
     * The fiber: waits for the 101 (or the end, if it never comes), runs the pipe on the connection's loop, then closes
     * as it ended.
     */
    def run: F[Unit] = F.flatMap(F.race(attached.await[F], over.await[F])) {
      case Left(_) => F.flatMap(F.executionContext)(rest => F.evalOn(piped, FiberRelay.onLoop(loop, rest)))
      case Right(_) => F.unit
    }

    /**
     * The pipe between the connection's messages and its writes, interrupted when the connection ends: one race for
     * the whole stream, where `interruptWhen` would look at the signal at every step.
     */
    private def piped: F[Unit] =
      val messages = messagesFrom(next).stream.onFinalize(F.delay(inputDropped()))
      val sent = F.race(sendAll(pipe(messages)).stream.compile.drain, over.await[F])
      F.flatMap(F.attempt(sent)) {
        case Right(_) => F.delay(closing(1000, ""))
        case Left(e) =>
          F.delay {
            log.error("A WebSocket's stream of messages failed", e)
            closing(1011, "The server failed.")
          }
      }

    /**
     * The client's messages, one asked of the connection each time the pipe pulls, until the end: one step of fs2's
     * per message (`repeatEval` and `unNoneTerminate` would be two stages).
     */
    private def messagesFrom(next: F[Option[Any]]): Pull[F, Any, Unit] =
      Pull.eval(next).flatMap {
        case Some(message) => Pull.output1(message) >> messagesFrom(next)
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
      end()
      pipe

    /** The pipe's next message: asked of the connection, answered by `received` (none once the connection ended). */
    private val next: F[Option[Any]] = waitFor[F, Option[Any]](askMessage)

    /**
     * Writes a message of the pipe's, and waits until the connection can take the next. On the loop (where the pipe
     * runs) the write is made at once, and a write that went through while it was made costs no wait.
     */
    private def send(message: Any): F[Unit] = F.defer {
      val bytes = encode(message)
      if loop.inLoop then
        if sendOnLoop(bytes) then F.unit else waitFor[F, Unit](awaitWritten)
      else waitFor[F, Unit](sendFromElsewhere(bytes, _))
    }
