package rapier.pekko.internal

import org.apache.pekko.stream.scaladsl.BidiFlow
import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{Attributes, BidiShape, Inlet, Outlet}
import org.apache.pekko.util.ByteString
import rapier.server.spi.{FrameEdges, FramingGuard, Refusals, WebSocketWatch}

import scala.concurrent.duration.*

/**
 * A connection's bytes through a [[FramingGuard]] before pekko-http's parser reads them: checked heads, re-framed
 * chunked bodies, a refusal as its marker request. A chunked body whose framing broke is cut with a byte pekko-http's
 * chunk parser refuses, so that the request fails there, as a broken chunk it reads itself does. A head must arrive
 * whole within `deadline` of its first byte, or it is refused with a 408. What the server writes passes as it is,
 * looked at only to learn whether a request asking to switch protocols was answered with a 101.
 *
 * After a 101 for a WebSocket of Rapier's (`connection` holds its [[WebSocketWatch]]), what the client sends is watched:
 * once it breaks RFC 6455's rules, pekko-http's WebSocket layer reads nothing more, the close the watch names goes out
 * at the end of the frame the server is writing (pekko-http closes with 1011 whatever the cause), and the connection
 * ends at the client's own close, or after `Refusals.LingerMillis`. A close of Rapier's own that pekko-http can't send
 * (any code but 1000) goes out in place of the 1011 pekko-http writes for it.
 *
 * Shape: `in1` (the server's bytes) to `out1` (the socket), `in2` (the socket) to `out2` (the parser).
 */
private[pekko] final class GuardStage(
    guard: () => FramingGuard,
    deadline: Duration,
    connection: Connections.Live | Null
) extends GraphStage[BidiShape[ByteString, ByteString, ByteString, ByteString]]:
  private val fromServer = Inlet[ByteString]("GuardStage.fromServer")
  private val toSocket = Outlet[ByteString]("GuardStage.toSocket")
  private val fromSocket = Inlet[ByteString]("GuardStage.fromSocket")
  private val toParser = Outlet[ByteString]("GuardStage.toParser")
  val shape: BidiShape[ByteString, ByteString, ByteString, ByteString] =
    BidiShape(fromServer, toSocket, fromSocket, toParser)

  def createLogic(attributes: Attributes): GraphStageLogic = new TimerGraphStageLogic(shape):
    import GuardStage.given
    private val checker = guard()
    private var passed = ByteString.newBuilder
    private var cut = false
    // A WebSocket's watch, from its 101 on; the server's frame edges; the close owed once the client broke a rule,
    // until it is sent
    private var watch: WebSocketWatch | Null = null
    private val edges = FrameEdges()
    private var owed: ByteString | Null = null
    // Whether the owed close goes next (the server's bytes so far end at a frame's end), and whether it went
    private var closeNext = false
    private var closeSent = false
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
            val switched = GuardStage.switches(bytes)
            checker.responded(switched, out)
            if connection != null then
              if switched then watch = connection.nn.webSocketWatch
              connection.nn.webSocketWatch = null
            deliver()
            push(toSocket, bytes)
          else if watch == null then push(toSocket, bytes)
          else if closeSent || closeNext then pull(fromServer)
          else
            val edge = edges.follow(bytes, bytes.length)
            val meant = if connection == null then null else connection.nn.webSocketClose
            if meant != null && owed == null && edges.closeStart >= 0 then
              // pekko-http's close (1011 for any code but 1000), the one Rapier meant in its place
              closeSent = true
              push(toSocket, bytes.take(edges.closeStart) ++ ByteString.fromArrayUnsafe(meant))
            else if owed == null || edge < 0 then push(toSocket, bytes)
            else
              // What pekko-http writes after the frame it was writing is dropped: the close goes next
              closeNext = true
              push(toSocket, bytes.take(edge))
        override def onUpstreamFinish(): Unit = if owed == null then complete(toSocket)
    )
    setHandler(
      toSocket,
      new OutHandler:
        def onPull(): Unit =
          if closeNext then sendClose()
          else if !hasBeenPulled(fromServer) && !isClosed(fromServer) then pull(fromServer)
        override def onDownstreamFinish(cause: Throwable): Unit = cancel(fromServer, cause)
    )
    setHandler(
      fromSocket,
      new InHandler:
        def onPush(): Unit =
          val bytes = grab(fromSocket)
          val array = bytes.toArrayUnsafe()
          if watch != null then watched(array)
          else checker.feed(array, 0, array.length, out)
          // Not once a WebSocket's breach has ended the stage
          if !isClosed(fromSocket) then
            if checker.failed != null && !cut then
              cut = true
              passed.putBytes(GuardStage.Cut)
            timeHead()
            // Nothing more is read while the parser has bytes waiting: a client pipelining requests it never reads the
            // answers of is held to one read's worth
            if !deliver() && passed.length == 0 then pull(fromSocket)
        override def onUpstreamFinish(): Unit =
          if owed == null && !closeSent then complete(toParser) else completeStage()
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

    // The client's bytes on a watched WebSocket: passed on while they keep the rules; after a breach, dropped until the
    // client's close, the connection then ended
    private def watched(array: Array[Byte]): Unit =
      val w = watch.nn
      val before = w.broken
      val breach = w.feed(array, 0, array.length)
      if breach == null then checker.feed(array, 0, array.length, out)
      else if before == null then
        owed = ByteString.fromArrayUnsafe(breach.frame)
        passed = ByteString.newBuilder
        scheduleOnce(GuardStage.Linger, Refusals.LingerMillis.millis)
        if edges.atEdge then
          closeNext = true
          if isAvailable(toSocket) then sendClose()
      else if closeSent && w.clientClosed then completeStage()

    // The owed close, sent; the connection ends at once if the client has closed too
    private def sendClose(): Unit =
      push(toSocket, owed.nn)
      owed = null
      closeNext = false
      closeSent = true
      if watch.nn.clientClosed then completeStage()

    private def timeHead(): Unit = deadline match
      case finite: FiniteDuration =>
        if !checker.headPending then cancelTimer(GuardStage.Head)
        else if !isTimerActive(GuardStage.Head) then scheduleOnce(GuardStage.Head, finite)
      case _ =>

    override protected def onTimer(key: Any): Unit =
      if key == GuardStage.Linger then completeStage()
      else if checker.headPending then
        checker.refuse(Refusals.headTimeout(deadline), out)
        deliver()

private[pekko] object GuardStage:
  private val Head = "head"
  private val Linger = "linger"
  private val CopyBelow = 4096
  // At most ~300 of the shortest requests a push: a few thousand frames of the parser's recursion
  private val MaxPush = 8192
  // Not a hex digit: pekko-http's chunk parser refuses it, at a chunk's start or where a chunk's CRLF is due.
  private val Cut = Array[Byte]('X', '\r', '\n')
  private val Switching = ByteString("HTTP/1.1 101")
  private given FrameEdges.At[ByteString] = (bytes, i) => bytes(i)

  // Whether a response's first bytes switch protocols.
  private def switches(bytes: ByteString): Boolean = bytes.startsWith(Switching)

  /** The stage as a bidi-flow: responses' bytes on top, requests' below. */
  def apply(
      guard: () => FramingGuard,
      deadline: Duration,
      connection: Connections.Live | Null
  ): BidiFlow[ByteString, ByteString, ByteString, ByteString, ?] =
    BidiFlow.fromGraph(new GuardStage(guard, deadline, connection))
