package rapier.pekko.internal

import org.apache.pekko.actor.Cancellable
import org.apache.pekko.http.impl.engine.http2.RapierHttp2
import org.apache.pekko.http.scaladsl.model.{
  EntityStreamException,
  EntityStreamSizeException,
  HttpEntity,
  ParsingException,
  RequestEntity
}
import org.apache.pekko.stream.scaladsl.{Sink, SinkQueueWithCancel, Source}
import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{
  Attributes,
  FlowShape,
  Inlet,
  Materializer,
  Outlet,
  StreamTcpException
}
import org.apache.pekko.util.ByteString
import rapier.server.spi.{
  BodyArray,
  BodyBudget,
  BodyReceiver,
  BodySource,
  BodyTooLargeException,
  Refusals,
  RequestBodyException
}
import rapier.server.spi.RequestSyntax.Invalid

import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.{AtomicLong, AtomicReference}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.{Failure, Success}

/** Request bodies, from pekko-http's entities. */
private[pekko] object Bodies:
  /**
   * The entity's bytes, within `limit` and `deadline`, counted in the server's `budget` as they arrive (the caller gives
   * them back once the request is answered, this method when the body can't be read). A strict entity (the whole body
   * came with the head, pekko-http's common case) is its array as it is; a streamed one is copied, chunk by chunk as it
   * comes, into one array that grows with them ([[BodyArray]]). Fails with a [[RequestBodyException]] for what is the
   * client's doing: past the limit, broken framing, a connection gone, a body slower than the deadline, a body the
   * budget can't hold. Past the
   * limit it fails at once with [[StillSent]], and the rest of the body is read and dropped for at most `linger`, as
   * the other backends do: a connection closed under a client still sending is reset, which may drop the 413 before
   * the client reads it.
   */
  def read(entity: RequestEntity, limit: Long, deadline: Duration, budget: BodyBudget, linger: FiniteDuration)(using
      mat: Materializer
  ): Future[Array[Byte]] =
    entity match
      case strict: HttpEntity.Strict =>
        if strict.data.length > limit then Future.failed(BodyTooLargeException(limit))
        // Read with the head already, and refused past the budget all the same: as every backend refuses it
        else if !budget.tryTake(strict.data.length) then Future.failed(RequestBodyException(Refusals.Busy))
        else Future.successful(strict.data.toArrayUnsafe())
      case streamed =>
        val into = BodyArray(limit, budget)
        into.begin(streamed.contentLengthOption.getOrElse(-1L))
        val dropped = Promise[Unit]()
        val chunks = streamed.withoutSizeLimit.dataBytes
        val timed = if deadline.isFinite then chunks.completionTimeout(finite(deadline)) else chunks
        timed
          .via(WithinLimit(limit, linger, dropped))
          .runForeach { chunk =>
            val n = chunk.length
            val refused = into.reserve(n)
            if refused != null then throw RequestBodyException(refused.nn)
            chunk.copyToArray(into.array, into.size, n)
            into.added(n)
          }
          .transform {
            case Success(_) => Success(into.result())
            case Failure(e) =>
              into.drop()
              clientsDoing(e, limit, deadline) match
                case tooLarge: BodyTooLargeException => Failure(StillSent(tooLarge, dropped.future))
                case other => Failure(other)
          }(using ExecutionContext.parasitic)

  /**
   * A body refused (past the limit) while its client still sends it: what it sends is read and dropped until `dropped`
   * completes, for a while at most; its refusal's connection should stay open until then.
   */
  final class StillSent(refused: RequestBodyException, val dropped: Future[Unit])
      extends RequestBodyException(refused.refusal)

  /**
   * A body within `limit`: past it the reader's stream fails with the 413's exception while the rest of the body is
   * read and dropped, until its end or for `linger` at most (a connection closed under a client still sending is
   * reset, which may lose the 413); `stopped` completes when the stage stops. Every reader of a body that has a limit
   * reads it through this stage: a body read whole, pulled, or taken as a pekko `Source`.
   */
  private final class WithinLimit(limit: Long, linger: FiniteDuration, stopped: Promise[Unit])
      extends GraphStage[FlowShape[ByteString, ByteString]]:
    private val in = Inlet[ByteString]("body.in")
    private val out = Outlet[ByteString]("body.out")
    val shape: FlowShape[ByteString, ByteString] = FlowShape(in, out)

    def createLogic(attributes: Attributes): GraphStageLogic =
      new TimerGraphStageLogic(shape) with InHandler with OutHandler:
        private var seen = 0L
        private var dropping = false

        def onPush(): Unit =
          val chunk = grab(in)
          if dropping then pull(in)
          else
            seen += chunk.length
            if seen <= limit then push(out, chunk)
            else
              dropping = true
              fail(out, BodyTooLargeException(limit))
              scheduleOnce("linger", linger)
              pull(in)

        def onPull(): Unit = pull(in)
        override def onUpstreamFailure(e: Throwable): Unit = if dropping then completeStage() else failStage(e)
        override def onDownstreamFinish(cause: Throwable): Unit = if !dropping then cancelStage(cause)
        override protected def onTimer(key: Any): Unit = completeStage()
        override def postStop(): Unit = stopped.trySuccess(())
        setHandlers(in, out, this)

  /**
   * What a failure of pekko-http's entity stream says about the client, as a [[RequestBodyException]] with its
   * refusal: past the limit (413), a connection closed or an HTTP/2 stream reset before the body's end (400, answered
   * nowhere), broken chunked framing (400), a body slower than the deadline (408). Anything else is left as it is.
   */
  def clientsDoing(e: Throwable, limit: Long, deadline: Duration): Throwable = e match
    case client: RequestBodyException => client
    case _: EntityStreamSizeException => BodyTooLargeException(limit)
    case s: EntityStreamException if s.info.summary.startsWith("Entity stream truncation") =>
      RequestBodyException(Refusals.BodyCutShort)
    case _: StreamTcpException => RequestBodyException(Refusals.BodyCutShort)
    case gone if gone == Http2Watch.Cut || RapierHttp2.clientGone(gone) => RequestBodyException(Refusals.BodyCutShort)
    case _: EntityStreamException | _: ParsingException => RequestBodyException(Refusals.InvalidBodyFraming)
    case _: TimeoutException => RequestBodyException(Refusals.bodyTimeout(deadline))
    case other => other

  /** pekko-http takes finite durations; "none" is a very long one. */
  def finite(d: Duration): FiniteDuration = d match
    case f: FiniteDuration => f
    case _ => 365.days

  /** Whether a request has a body: a declared length past 0, or chunks. */
  def hasBody(entity: RequestEntity): Boolean = !entity.isKnownEmpty

  /**
   * A request body streamed to an endpoint, within `limit`, each pull timed by `deadline` while it waits for the
   * client: the entity's bytes pulled through a queue, one chunk per pull. An fs2-free, pekko-free reader (a
   * `Flow.Publisher`, an `InputStream`, `BodyChunks`) pulls it so; a reader of pekko's own `Source` takes the entity's
   * stream as it is ([[takeSource]]). A body that could not be read leaves its [[refusal]], which answers the request
   * whatever the logic answered; one past the limit is read on and dropped for at most `linger` meanwhile.
   */
  final class EntitySource(entity: RequestEntity, limit: Long, deadline: Duration, linger: FiniteDuration)(using
      mat: Materializer
  ) extends BodySource:
    // Null until the first pull (or the stream taken): the entity's bytes, one read at a time
    private var queue: SinkQueueWithCancel[ByteString] | Null = null
    private var taken = false
    @volatile private var failed: Invalid | Null = null
    @volatile private var finished = false
    // The pull waiting for the client: its number while it waits, 0 when none does. It is answered once, by its chunk
    // or by the deadline, whichever takes the number back to 0 first. Pulls come one at a time.
    private val waiting = AtomicLong(0L)
    private var pulls = 0L
    @volatile private var waitingReceiver: BodyReceiver | Null = null
    @volatile private var waitingSince = 0L
    private val deadlineNanos = rapier.timeoutNanos(deadline)
    // The deadline's one timer, armed while pulls wait, or null. One per pull would be one per chunk, each kept by
    // pekko's scheduler until its time even once cancelled: at 60 s, a few megabytes copied from one young collection
    // to the next under a steady stream of uploads.
    private val deadlineTimer = AtomicReference[Cancellable | Null](null)
    // The thread running the connection's stream while it hands the request to the endpoint, or null
    @volatile private var dispatcher: Thread | Null = null
    // Completes when the limit's stage stops: once the rest of a body refused past the limit is dropped; null until
    // the body is read
    @volatile private var dropping: Future[Unit] | Null = null

    /**
     * Runs `dispatch` (the endpoint taking the request) noting that the calling thread runs the connection's stream:
     * the stream that answers this source's pulls, which a blocking read there would wait for forever.
     */
    def dispatching[A](dispatch: => A): A =
      dispatcher = Thread.currentThread
      try dispatch
      finally dispatcher = null

    override def answersOnThisThread: Boolean = dispatcher eq Thread.currentThread

    def declaredLength: Long = entity.contentLengthOption.getOrElse(-1L)

    /** Why the body could not be read (413, 400, 408), or null. */
    def refusal: Invalid | Null = failed

    /**
     * Completes once what the client still sends of a refused body is read and dropped (its end, or the linger's):
     * the refusal's connection stays open until then. Complete at once for a body that is not being dropped.
     */
    def refusalDropped: Future[Unit] =
      val d = dropping
      if d == null then Future.unit else d.nn

    /** Whether the body was read to its end: the connection can serve another request. */
    def readWhole: Boolean = finished

    /**
     * The entity's bytes as pekko-http streams them, for a reader of pekko `Source`s, with one stage that holds the
     * limit ([[WithinLimit]]); or null once something pulled from this source. A stalled body is pekko-http's idle
     * timeout's.
     */
    def takeSource(): Source[ByteString, Any] | Null =
      if queue != null || taken then null
      else
        taken = true
        limited
          .mapError { case e => fail(clientsDoing(e, limit, deadline)) }
          .watchTermination() { (m, done) =>
            done.foreach(_ => finished = true)(using ExecutionContext.parasitic)
            m
          }

    def pull(receiver: BodyReceiver): Unit =
      if taken then receiver.onError(IllegalStateException("the body was taken as a stream"))
      else
        val next = queued().pull()
        next.value match
          case Some(now) => answer(receiver, now)
          case None =>
            pulls += 1
            val pull = pulls
            waitingReceiver = receiver
            waitingSince = System.nanoTime()
            waiting.set(pull)
            if deadlineNanos > 0 then watch(deadlineNanos)
            next.onComplete { outcome =>
              if waiting.compareAndSet(pull, 0L) then answer(receiver, outcome)
            }(using ExecutionContext.parasitic)

    // Arms the deadline's timer unless it is armed. A stream that stopped while the pull was being made has already
    // had its timer taken away: one armed after that is taken away here, or it would hold the body until its time.
    private def watch(nanos: Long): Unit =
      if deadlineTimer.get == null then
        val timer = mat.scheduleOnce(nanos.nanos, () => check())
        if !deadlineTimer.compareAndSet(null, timer) then timer.cancel()
        else if dropping.nn.isCompleted then unwatch()

    // The deadline's timer: fails the pull waiting past it, or is armed again for what is left of its time.
    private def check(): Unit =
      deadlineTimer.set(null)
      val pull = waiting.get
      if pull != 0L then
        val left = waitingSince + deadlineNanos - System.nanoTime()
        if left > 0 then watch(left)
        else if waiting.compareAndSet(pull, 0L) then
          val receiver = waitingReceiver.nn
          stop()
          receiver.onError(fail(RequestBodyException(Refusals.bodyTimeout(deadline))))

    // The body's stream has stopped: the timer lets the body go now rather than at its time.
    private def unwatch(): Unit =
      val timer = deadlineTimer.getAndSet(null)
      if timer != null then timer.nn.cancel()

    private def answer(receiver: BodyReceiver, outcome: scala.util.Try[Option[ByteString]]): Unit = outcome match
      case Success(Some(chunk)) => receiver.onChunk(chunk.asByteBuffer)
      case Success(None) =>
        finished = true
        receiver.onEnd()
      case Failure(e) => receiver.onError(fail(clientsDoing(e, limit, deadline)))

    /** Records why the body could not be read, when it is the client's doing, and gives the failure back. */
    private def fail(e: Throwable): Throwable =
      e match
        case client: RequestBodyException => if failed == null then failed = client.refusal
        case _ => ()
      e

    /**
     * Reads what is left of a body the logic did not read to its end, and drops it, for at most `within`: whether it
     * was read to its end. A client still sending when pekko-http closes the connection would have it reset under it,
     * and could lose the response. A body never pulled is read too when `unpulled` says nothing will pull it: not
     * when its client waits for `100 Continue` (pulling it would ask for the body no one wants), nor when the
     * response is a stream, which may be the body's own. A body taken as a stream, refused, or with a pull still
     * waiting, is left as it is: false.
     */
    def drain(within: FiniteDuration, unpulled: Boolean): Future[Boolean] =
      if finished then Future.successful(true)
      else if taken || failed != null || waiting.get != 0L || (queue == null && !unpulled) then
        Future.successful(false)
      else
        val q = queued()
        val done = scala.concurrent.Promise[Boolean]()
        val timer = mat.scheduleOnce(within, () => if done.trySuccess(false) then stop())
        def next(): Unit = q.pull().onComplete {
          case Success(Some(_)) => if !done.isCompleted then next()
          case Success(None) =>
            finished = true
            timer.cancel()
            done.trySuccess(true)
          case Failure(_) =>
            // Past the limit, the limit's stage drops the rest itself, for a while: the response waits for it
            timer.cancel()
            dropping.nn.onComplete(_ => done.trySuccess(false))(using ExecutionContext.parasitic)
        }(using ExecutionContext.parasitic)
        next()
        done.future

    /** The body through [[WithinLimit]], the stage's end noted in `dropping`. */
    private def limited: Source[ByteString, Any] =
      val stopped = Promise[Unit]()
      dropping = stopped.future
      entity.dataBytes.via(WithinLimit(limit, linger, stopped))

    /** The queue the body is pulled through, one chunk at a time, opened at the first pull. */
    private def queued(): SinkQueueWithCancel[ByteString] =
      if queue == null then
        // Room for two pulls: one made as the previous one completes was refused as a second at once (seen under load)
        queue = limited.runWith(Sink.queue[ByteString](2))
        // However the body's stream stops (its end, a failure, a cancel, a drain), the deadline's timer goes with it
        dropping.nn.onComplete(_ => unwatch())(using ExecutionContext.parasitic)
      queue.nn

    /**
     * The reader wants no more. With no pull waiting, the rest is left for [[drain]] to read and drop after the
     * response, as the SPI lets a backend discard it: cancelling pekko-http's entity stream makes it close the
     * connection under a client still sending, whose kernel may then drop the response (the kit saw it when a fold's
     * function threw). With a pull waiting, it stops.
     */
    def cancel(): Unit = if waiting.get != 0L then stop()

    /** Stops reading for good: a refusal's (the connection closes after it) or the linger's end. */
    private def stop(): Unit =
      val q = queue
      if q != null then q.nn.cancel()
      else if !taken then
        taken = true
        val _ = entity.discardBytes(mat)
