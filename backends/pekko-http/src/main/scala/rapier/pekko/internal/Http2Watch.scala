package rapier.pekko.internal

import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{Attributes, BidiShape, Inlet, Outlet}
import org.apache.pekko.util.ByteString
import rapier.server.Http2
import rapier.server.spi.Http2Frames.*

import scala.concurrent.duration.*
import scala.util.control.NoStackTrace

/**
 * Rapier's watch over an HTTP/2 connection pekko-http serves, between its frames (above) and the connection's bytes
 * (below): it reads the frame headers going both ways and holds the client to the frame [[Rules]] pekko-http leaves
 * unchecked and to the limits it has none for — resets per window (where pekko-http only slows a client down),
 * CONTINUATION frames per header block, empty DATA frames, SETTINGS and PING frames left unacknowledged — and ends a
 * connection idle for `idleTimeout`, or whose client spends longer than `headTimeout` on a header block. Either way
 * the client gets a GOAWAY, naming the last stream it opened, before the connection closes.
 */
private[pekko] final class Http2Watch(limits: Http2, idleTimeout: Duration, headTimeout: Duration)
    extends GraphStage[BidiShape[ByteString, ByteString, ByteString, ByteString]]:
  private val fromServer = Inlet[ByteString]("Http2Watch.fromServer")
  private val toClient = Outlet[ByteString]("Http2Watch.toClient")
  private val fromClient = Inlet[ByteString]("Http2Watch.fromClient")
  private val toServer = Outlet[ByteString]("Http2Watch.toServer")
  val shape: BidiShape[ByteString, ByteString, ByteString, ByteString] =
    BidiShape(fromServer, toClient, fromClient, toServer)

  def createLogic(attributes: Attributes): GraphStageLogic = new TimerGraphStageLogic(shape):
    private val in = Reader(keeps = true)
    private val out = Reader(keeps = false)
    private val floods = Floods(limits)
    private val rules = Rules()
    // The client's preface (RFC 9113 §3.4), which pekko-http's framing reads, comes before its first frame
    private var prefaceLeft = Http2Watch.PrefaceLength
    private var lastStream = 0
    private var lastActive = System.nanoTime()

    private val idleNanos = rapier.timeoutNanos(idleTimeout)
    private val headNanos = rapier.timeoutNanos(headTimeout)

    override def preStart(): Unit =
      val tick = deadlineTick(idleNanos, headNanos)
      if tick > 0 then scheduleWithFixedDelay(Http2Watch.Deadlines, tick.nanos, tick.nanos)

    override protected def onTimer(key: Any): Unit =
      if idleNanos > 0 && System.nanoTime() - lastActive >= idleNanos then cut(NoError)
      else if headNanos > 0 && floods.blockPendingFor(headNanos) then cut(NoError)

    setHandler(
      fromClient,
      new InHandler:
        def onPush(): Unit =
          val bytes = grab(fromClient)
          lastActive = System.nanoTime()
          if isClosed(toServer) then pull(fromClient)
          else
            val code = received(bytes.toArrayUnsafe())
            if code >= 0 then cut(code) else push(toServer, bytes)
        override def onUpstreamFinish(): Unit = complete(toServer)
        override def onUpstreamFailure(e: Throwable): Unit = fail(toServer, e)
    )
    setHandler(
      toServer,
      new OutHandler:
        def onPull(): Unit = pull(fromClient)
        // The layer stops reading before it writes its last frames (a GOAWAY): what the client still sends is read and
        // dropped until then, since a connection closed for reading would close before them
        override def onDownstreamFinish(cause: Throwable): Unit =
          if isClosed(fromServer) then cancel(fromClient, cause)
          else if !hasBeenPulled(fromClient) then pull(fromClient)
    )
    setHandler(
      fromServer,
      new InHandler:
        def onPush(): Unit =
          val bytes = grab(fromServer)
          lastActive = System.nanoTime()
          sent(bytes.toArrayUnsafe())
          push(toClient, bytes)
        override def onUpstreamFinish(): Unit =
          complete(toClient)
          cancel(fromClient)
        override def onUpstreamFailure(e: Throwable): Unit =
          fail(toClient, e)
          cancel(fromClient)
    )
    setHandler(
      toClient,
      new OutHandler:
        def onPull(): Unit = if !isClosed(fromServer) && !hasBeenPulled(fromServer) then pull(fromServer)
        override def onDownstreamFinish(cause: Throwable): Unit = cancel(fromServer, cause)
    )

    // The frames in what the client sent: the code to end its connection with, or -1.
    private def received(bytes: Array[Byte]): Int =
      var at = math.min(prefaceLeft, bytes.length)
      prefaceLeft -= at
      while at < bytes.length do
        at = in.feed(bytes, at, bytes.length)
        if in.oversized then return FrameSizeError
        if in.headerDone then
          in.headerDone = false
          floods.begun(in)
          val broken = rules.header(in)
          if broken >= 0 then return broken
        if in.done then
          if in.kind == Headers && in.stream > lastStream then lastStream = in.stream
          val broken = rules.frame(in)
          if broken >= 0 then return broken
          if floods.received(in) then return EnhanceYourCalm
          in.reset()
      -1

    private def sent(bytes: Array[Byte]): Unit =
      var at = 0
      while at < bytes.length do
        at = out.feed(bytes, at, bytes.length)
        out.headerDone = false
        if out.done then
          floods.sent(out)
          out.reset()

    // The server's layer is told its client has gone (failed, not ended: it may hold part of a frame); the client gets
    // a GOAWAY after what was sent, then the close.
    private def cut(code: Int): Unit =
      cancelTimer(Http2Watch.Deadlines)
      cancel(fromClient)
      fail(toServer, Http2Watch.Cut)
      cancel(fromServer)
      if isClosed(toClient) then completeStage()
      else emit(toClient, ByteString.fromArrayUnsafe(goAway(lastStream, code)), () => complete(toClient))

private[pekko] object Http2Watch:
  /** How the server's layer hears that the watch has ended its connection. */
  object Cut extends java.io.IOException("The connection was ended by its HTTP/2 limits") with NoStackTrace

  private val PrefaceLength = 24
  private val Deadlines = "deadlines"
