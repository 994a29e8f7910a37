package rapier.pekko.internal

import org.apache.pekko.stream.scaladsl.BidiFlow
import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{Attributes, BidiShape, Inlet, Outlet}
import org.apache.pekko.util.ByteString
import rapier.server.spi.{FramingGuard, Refusals}

import scala.concurrent.duration.*

/**
 * A connection's bytes through a [[FramingGuard]] before pekko-http's parser reads them: checked heads, re-framed
 * chunked bodies, a refusal as its marker request. A chunked body whose framing broke is cut with a byte pekko-http's
 * chunk parser refuses, so that the request fails there, as a broken chunk it reads itself does. A head must arrive
 * whole within `deadline` of its first byte, or it is refused with a 408. What the server writes passes as it is,
 * looked at only to learn whether a request asking to switch protocols was answered with a 101.
 *
 * Shape: `in1` (the server's bytes) to `out1` (the socket), `in2` (the socket) to `out2` (the parser).
 */
private[pekko] final class GuardStage(guard: () => FramingGuard, deadline: Duration)
    extends GraphStage[BidiShape[ByteString, ByteString, ByteString, ByteString]]:
  private val fromServer = Inlet[ByteString]("GuardStage.fromServer")
  private val toSocket = Outlet[ByteString]("GuardStage.toSocket")
  private val fromSocket = Inlet[ByteString]("GuardStage.fromSocket")
  private val toParser = Outlet[ByteString]("GuardStage.toParser")
  val shape: BidiShape[ByteString, ByteString, ByteString, ByteString] =
    BidiShape(fromServer, toSocket, fromSocket, toParser)

  def createLogic(attributes: Attributes): GraphStageLogic = new TimerGraphStageLogic(shape):
    private val checker = guard()
    private var passed = ByteString.newBuilder
    private var cut = false
    // Small pieces (a re-framed chunk's size line, a 1-byte chunk) are copied together, so that the parser reads few
    // fragments; larger slices, of arrays nothing writes again, are wrapped.
    private val out: FramingGuard.Out = (bytes, offset, length) =>
      if length < GuardStage.CopyBelow then passed.putBytes(bytes, offset, length)
      else passed ++= ByteString.fromArrayUnsafe(bytes, offset, length)

    setHandler(
      fromServer,
      new InHandler:
        def onPush(): Unit =
          val bytes = grab(fromServer)
          if checker.awaitingVerdict then
            checker.responded(GuardStage.switches(bytes), out)
            deliver()
          push(toSocket, bytes)
        override def onUpstreamFinish(): Unit = complete(toSocket)
    )
    setHandler(
      toSocket,
      new OutHandler:
        def onPull(): Unit = pull(fromServer)
        override def onDownstreamFinish(cause: Throwable): Unit = cancel(fromServer, cause)
    )
    setHandler(
      fromSocket,
      new InHandler:
        def onPush(): Unit =
          val bytes = grab(fromSocket)
          val array = bytes.toArrayUnsafe()
          checker.feed(array, 0, array.length, out)
          if checker.failed != null && !cut then
            cut = true
            passed.putBytes(GuardStage.Cut)
          timeHead()
          // Nothing more is read while the parser has bytes waiting: a client pipelining requests it never reads the
          // answers of is held to one read's worth
          if !deliver() && passed.length == 0 && !isClosed(fromSocket) then pull(fromSocket)
        override def onUpstreamFinish(): Unit = complete(toParser)
    )
    setHandler(
      toParser,
      new OutHandler:
        def onPull(): Unit = if !deliver() && !hasBeenPulled(fromSocket) then pull(fromSocket)
        override def onDownstreamFinish(cause: Throwable): Unit = cancel(fromSocket, cause)
    )

    // Pushes what the guard passed on, if the parser wants it, at most MaxPush bytes; whether it did. pekko-http's
    // parser reads the requests of one push by recursion, a frame per request: thousands of pipelined requests in one
    // push overflow its stack, and pekko ends the JVM on that.
    private def deliver(): Boolean =
      if passed.length == 0 || !isAvailable(toParser) then false
      else
        val bytes = passed.result()
        passed = ByteString.newBuilder
        if bytes.length <= GuardStage.MaxPush then push(toParser, bytes)
        else
          push(toParser, bytes.take(GuardStage.MaxPush))
          passed ++= bytes.drop(GuardStage.MaxPush)
        true

    private def timeHead(): Unit = deadline match
      case finite: FiniteDuration =>
        if !checker.headPending then cancelTimer(GuardStage.Head)
        else if !isTimerActive(GuardStage.Head) then scheduleOnce(GuardStage.Head, finite)
      case _ =>

    override protected def onTimer(key: Any): Unit =
      if checker.headPending then
        checker.refuse(Refusals.headTimeout(deadline), out)
        deliver()

private[pekko] object GuardStage:
  private val Head = "head"
  private val CopyBelow = 4096
  // At most ~300 of the shortest requests a push: a few thousand frames of the parser's recursion
  private val MaxPush = 8192
  // Not a hex digit: pekko-http's chunk parser refuses it, at a chunk's start or where a chunk's CRLF is due.
  private val Cut = Array[Byte]('X', '\r', '\n')
  private val Switching = ByteString("HTTP/1.1 101")

  // Whether a response's first bytes switch protocols.
  private def switches(bytes: ByteString): Boolean = bytes.startsWith(Switching)

  /** The stage as a bidi-flow: responses' bytes on top, requests' below. */
  def apply(
      guard: () => FramingGuard,
      deadline: Duration
  ): BidiFlow[ByteString, ByteString, ByteString, ByteString, ?] =
    BidiFlow.fromGraph(new GuardStage(guard, deadline))
