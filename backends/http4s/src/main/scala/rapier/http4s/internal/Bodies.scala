package rapier.http4s.internal

import cats.effect.{Async, Fiber}
import fs2.{Chunk, Pull, Stream}
import org.http4s.ember.core.EmberException
import rapier.cats.Fs2Source
import rapier.server.spi.RequestSyntax.Invalid
import rapier.server.spi.{BodyArray, BodyBudget, BodyTooLargeException, Refusals, RequestBodyException}

import java.util.concurrent.TimeoutException
import scala.concurrent.duration.*
import scala.util.control.NonFatal

/** Request bodies, from http4s's fs2 stream of them. */
private[http4s] object Bodies:
  /**
   * The whole body, in one array grown as its chunks arrive ([[BodyArray]]; Ember reads exactly a declared length),
   * failing with [[BodyTooLargeException]] once past `limit`, and with a
   * [[RequestBodyException]] when the client's framing breaks, it goes away, the body takes longer than `deadline` or
   * the server's `budget` can't hold it. Its bytes are counted in the budget as they arrive; the caller gives them back
   * once the request is answered, this method when the body can't be read.
   *
   * A body of declared length is folded over as it comes, the lightest read fs2 has. A chunked one, which can cross the
   * limit midway, is read chunk by chunk with what is still unread kept: its [[leftover]], to drain after the refusal,
   * so that the client is not cut off mid-upload before it reads the answer (that costs about 4 KB per request more,
   * in `Http4sPostBenchmark`, so declared lengths don't pay it).
   */
  final class Reading[F[_]](view: Http4sRequest[F], limit: Long, deadline: Duration, budget: BodyBudget)(using
      F: Async[F]
  ):
    private val chunked = view.declaredLength < 0
    // What of a chunked body is not read yet
    @volatile private var unread: Stream[F, Chunk[Byte]] = view.request.body.chunks

    /** What was not read of a chunked body refused midway, or null for a body of declared length. */
    def leftover: Stream[F, Byte] | Null = if chunked then unread.unchunks else null

    def bytes(fromClient: ClientFailures): F[Array[Byte]] =
      F.defer {
        val into = Accumulator(view.declaredLength, limit, deadline, budget)
        val read =
          if chunked then go(unread, into).stream.compile.drain else unread.compile.fold(())((_, c) => into.add(c))
        F.onError(F.adaptError(F.map(read)(_ => into.result()))(fromClient)) { case _ => F.delay(into.drop()) }
      }

    private def go(chunks: Stream[F, Chunk[Byte]], into: Accumulator): Pull[F, Nothing, Unit] =
      chunks.pull.uncons1.flatMap {
        case None => Pull.done
        case Some((chunk, rest)) =>
          unread = rest
          val refused =
            try
              into.add(chunk)
              null
            catch case NonFatal(e) => e
          if refused == null then go(rest, into) else Pull.raiseError[F](refused)
      }

  /** How a failure of http4s's body stream is told as the client's doing (see [[clientsDoing]]). */
  type ClientFailures = PartialFunction[Throwable, Throwable]

  /**
   * What a failure of http4s's body stream says about the client: broken chunked framing (400), a connection closed
   * before the body's end (400, answered nowhere), a body that stopped coming for Ember's idle timeout (408): a
   * [[RequestBodyException]] with its refusal. Anything else is left as it is.
   */
  def clientsDoing(deadline: Duration): ClientFailures = {
    case e: RequestBodyException => e
    case _: EmberException.ChunkedEncodingError | _: EmberException.ParseError | _: EmberException.MessageTooLong =>
      RequestBodyException(Refusals.InvalidBodyFraming)
    case _: EmberException.ReachedEndOfStream | _: EmberException.EmptyStream |
        _: EmberException.IncompleteClientRequest =>
      RequestBodyException(Refusals.BodyCutShort)
    case _: EmberException.ReadTimeout | _: TimeoutException => RequestBodyException(Refusals.bodyTimeout(deadline))
    // the trailer section's parser (its errors are Ember's private classes)
    case e if e.getClass.getName.startsWith("org.http4s.ember.core.Parser") =>
      RequestBodyException(Refusals.InvalidBodyFraming)
  }

  /**
   * Reads what the client still sends of a body no one read, for [[Refusals.LingerMillis]] at most, and drops it: the
   * server closes a connection whose request body was left unread, and closing on unread bytes would reset it under
   * the response the client has not read yet.
   */
  def linger[F[_]](leftover: Stream[F, Byte])(using F: Async[F]): F[Unit] =
    F.void(F.attempt(F.timeout(leftover.compile.drain, Refusals.LingerMillis.millis)))

  /**
   * A body streamed to its endpoint, watched: within `limit` when its length is not declared (a declared length past
   * it is refused before), timed while its reader waits for the client (`deadline`), and with what went wrong kept
   * as the [[refusal]] that answers the request whatever its logic answers. The source hands http4s's stream, with
   * this watch as its one stage, to an fs2 reader as it is.
   */
  final class Watched[F[_]](view: Http4sRequest[F], limit: Long, deadline: Duration, fromClient: ClientFailures)(
      using F: Async[F]
  ):
    private val checksLength = limit != Long.MaxValue && view.declaredLength < 0
    private val deadlineNanos = deadline match
      case d: FiniteDuration => d.toNanos
      case _ => 0L
    // Since when (System.nanoTime) a pull has waited for the client; 0 while none waits
    @volatile private var waitingSince = 0L
    @volatile private var ended = false
    // What of http4s's stream no one has read yet: drained after the response (see `leftover`)
    private val whole: Stream[F, Byte] = view.request.body
    @volatile private var unread: Stream[F, Byte] = whole
    @volatile private var failed: Invalid | Null = null
    // Whether the body was refused past the limit: what the client still sends of it is drained after the 413
    @volatile private var overLimit = false

    /** Why the body could not be read, if it could not: the request's answer then. */
    def refusal: Invalid | Null = failed

    /**
     * What of the body no one read, to drain after the response so that the connection is not reset under it, or
     * null: the body was read to its end, or broke (a body refused past the limit is drained after its 413).
     */
    def leftover: Stream[F, Byte] | Null = if drains then unread else null

    private def drains: Boolean = !ended && (failed == null || overLimit)

    /**
     * Whether the body was read in part, or its reading started, and not to its end: the connection closes after the
     * response then (the [[leftover]] drained first), as what remains of it is read from where another stream left off.
     */
    def readInPart: Boolean = !ended && failed == null && ((unread ne whole) || source.runsHere)

    /**
     * Drains the [[leftover]], as it is once the response is sent. The logic may have answered while its read goes
     * on, in `reader` (the source's fiber): the source is cancelled first, and the fiber's end awaited, so that one
     * reader at a time takes from the connection — two would take the next request's bytes as this body's. Within
     * [[Refusals.LingerMillis]] in all; a fiber still waiting for the client then is cancelled, and the connection
     * closes on what is left.
     */
    def drain(reader: Fiber[F, Throwable, Unit]): F[Unit] = F.defer {
      if !drains then F.unit
      else
        source.cancel()
        val rest = F.flatMap(reader.join) { _ =>
          F.defer {
            val left = leftover
            if left == null then F.unit else left.nn.compile.drain
          }
        }
        F.void(F.attempt(F.timeoutTo(rest, Refusals.LingerMillis.millis, reader.cancel)))
    }

    val source: Fs2Source[F] = new Fs2Source[F](watch(whole, 0L).handleErrorWith(failedBy).stream)

    /**
     * Runs `answering` (the logic) while timing the reader's waits for the client. A wait longer than the deadline
     * fails the body with a 408: a reader pulling through the [[source]] has its pull failed with it and the source's
     * fiber (`reading`) cancelled; an fs2 reader, which runs the stream in the logic's own fiber, has the logic
     * cancelled, answered as `timedOutAs`. Without a deadline nothing is timed.
     *
     * The wait is broken by cancelling a fiber, once, rather than by making the stream interruptible: fs2 races every
     * effect of an interruptible stream against its interruption, two fibers per chunk.
     */
    def timed[A](reading: Fiber[F, Throwable, Unit], answering: F[A], timedOutAs: => A): F[A] =
      if deadlineNanos == 0L then answering
      else F.map(F.race(deadlineWatch(reading), answering))(_.fold(_ => timedOutAs, identity))

    // Ends only when a wait of an fs2 reader passed the deadline; for a reader through the source, it fails the pull
    // waiting and cancels the source's fiber, then waits for the logic to answer.
    private def deadlineWatch(reading: Fiber[F, Throwable, Unit]): F[Unit] =
      def after(nanos: Long): F[Unit] = F.flatMap(F.sleep(nanos.nanos)) { _ =>
        F.defer {
          val since = waitingSince
          if ended || failed != null then F.never
          else if since == 0L then after(deadlineNanos)
          else
            val left = since + deadlineNanos - System.nanoTime()
            if left > 0 then after(left)
            else
              val refusal = Refusals.bodyTimeout(deadline)
              failed = refusal
              if !source.runsHere then F.unit
              else
                source.finish(RequestBodyException(refusal))
                F.productR(reading.cancel)(F.never)
        }
      }
      after(deadlineNanos)

    // The reader's pulls, each of http4s's chunks passed on as it came, with one error handler around them all. The
    // wait starts when the reader asks for the next chunk, which is when the suspended pull runs.
    private def watch(bytes: Stream[F, Byte], seen: Long): Pull[F, Byte, Unit] =
      Pull.suspend {
        waitingSince = System.nanoTime()
        bytes.pull.uncons.flatMap {
          case None =>
            waitingSince = 0L
            ended = true
            Pull.done
          case Some((chunk, rest)) =>
            waitingSince = 0L
            unread = rest
            val total = seen + chunk.size
            if checksLength && total > limit then
              overLimit = true
              fail(BodyTooLargeException(limit))
            else Pull.output(chunk) >> watch(rest, total)
        }
      }

    private def failedBy(e: Throwable): Pull[F, Byte, Unit] =
      waitingSince = 0L
      fail(fromClient.applyOrElse(e, identity))

    private def fail(e: Throwable): Pull[F, Nothing, Unit] =
      e match
        case client: RequestBodyException if failed == null => failed = client.refusal
        case _ =>
      Pull.raiseError[F](e)

  /**
   * A body's bytes as they arrive, in one array that grows with them ([[BodyArray]]); each chunk copied once. A
   * chunk arriving past the deadline fails the read with a 408, with no timer per request: a client that stops
   * sending altogether is Ember's idle timeout's (a 408 too, see [[clientsDoing]]).
   */
  private final class Accumulator(declared: Long, limit: Long, deadline: Duration, budget: BodyBudget):
    private val into = BodyArray(limit, budget)
    into.begin(declared)
    private val until = deadline match
      case d: FiniteDuration => System.nanoTime() + d.toNanos
      case _ => Long.MaxValue

    def add(chunk: Chunk[Byte]): Unit =
      val n = chunk.size
      if into.size.toLong + n > limit then throw BodyTooLargeException(limit)
      if until != Long.MaxValue && System.nanoTime() - until > 0 then
        throw RequestBodyException(Refusals.bodyTimeout(deadline))
      val refused = into.reserve(n)
      if refused != null then throw RequestBodyException(refused.nn)
      chunk.copyToArray(into.array, into.size)
      into.added(n)

    def result(): Array[Byte] = into.result()

    def drop(): Unit = into.drop()
