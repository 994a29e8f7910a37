package rapier.pekko.internal

import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{Attributes, BidiShape, Inlet, Outlet}
import org.apache.pekko.util.ByteString
import rapier.server.Http2
import rapier.server.spi.Http2Frames.*
import rapier.server.spi.{Http2Ledger, Http2Stalls}

import scala.concurrent.duration.*
import scala.util.control.NoStackTrace

/**
 * Rapier's watch over an HTTP/2 connection pekko-http serves, between its frames (above) and the connection's bytes
 * (below): it reads the frame headers going both ways and holds the client to the frame [[Rules]] pekko-http leaves
 * unchecked and to the limits it has none for — resets per window, the client's and pekko-http's own (where pekko-http
 * only slows a client down), CONTINUATION frames per header block, empty DATA frames, SETTINGS and PING frames left
 * unacknowledged — and ends a connection idle for `idleTimeout` (its [[Http2Ledger]]'s: pings don't count), or whose
 * client spends longer than `headTimeout` on its first SETTINGS or a header block. Either way the client gets a
 * GOAWAY, naming the last stream it opened, before the connection closes. An answer the ledger finds stalled is reset:
 * pekko-http is told its client cancelled it (which lets its body go), the client that it is cancelled.
 */
private[pekko] final class Http2Watch(limits: Http2, idleTimeout: Duration, headTimeout: Duration, stalls: Http2Stalls)
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

    private val idleNanos = rapier.timeoutNanos(idleTimeout)
    private val headNanos = rapier.timeoutNanos(headTimeout)
    private val ledger = Http2Ledger(idleNanos, stalls)
    // Streams the ledger gave up, whose resets wait for a frame's end in each direction
    private val toReset = scala.collection.mutable.ArrayBuffer.empty[Int]
    private val toCancel = scala.collection.mutable.ArrayBuffer.empty[Int]
    private val reset: java.util.function.IntConsumer = stream =>
      toReset += stream
      toCancel += stream

    override def preStart(): Unit =
      val tick = Http2Ledger.tick(idleNanos, headNanos)
      scheduleWithFixedDelay(Http2Watch.Deadlines, tick.nanos, tick.nanos)

    override def postStop(): Unit = ledger.close()

    override protected def onTimer(key: Any): Unit =
      if key == Http2Watch.Closing then completeStage() else deadlines()

    private def deadlines(): Unit =
      val now = System.nanoTime()
      ledger.check(now, reset)
      if ledger.idle(now) then cut(NoError)
      else if headNanos > 0 && floods.blockPendingFor(headNanos) then cut(NoError)
      else resetStalled()

    // The streams given up, reset where a frame ends: RST_STREAM CANCEL to the client, and to pekko-http as if from the
    // client, which lets the answer's body go and sends nothing back
    private def resetStalled(): Unit =
      if toReset.nonEmpty && out.atBoundary && !isClosed(toClient) then
        emit(toClient, frames(toReset))
        toReset.clear()
      if toCancel.nonEmpty && in.atBoundary && !isClosed(toServer) then
        emit(toServer, frames(toCancel))
        toCancel.clear()

    private def frames(streams: scala.collection.mutable.ArrayBuffer[Int]): ByteString =
      val builder = ByteString.newBuilder
      streams.foreach(stream => builder.putBytes(rstStream(stream, Cancel)))
      builder.result()

    setHandler(
      fromClient,
      new InHandler:
        def onPush(): Unit =
          val bytes = grab(fromClient)
          if isClosed(toServer) then pull(fromClient)
          else
            val code = received(bytes.toArrayUnsafe())
            if code >= 0 then cut(code)
            else
              push(toServer, bytes)
              if toCancel.nonEmpty then resetStalled()
        override def onUpstreamFinish(): Unit = complete(toServer)
        override def onUpstreamFailure(e: Throwable): Unit = fail(toServer, e)
    )
    setHandler(
      toServer,
      new OutHandler:
        // A reset put in (`emit`) hands the pull back here once it is taken, the client's bytes perhaps asked for
        def onPull(): Unit = if !hasBeenPulled(fromClient) && !isClosed(fromClient) then pull(fromClient)
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
          val over = sent(bytes.toArrayUnsafe())
          push(toClient, bytes)
          if over then cut(EnhanceYourCalm)
          else if toReset.nonEmpty then resetStalled()
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
          ledger.client(in)
          in.reset()
      -1

    // The server's frames: whether its resets are past the limit
    private def sent(bytes: Array[Byte]): Boolean =
      var over = false
      var at = 0
      while at < bytes.length do
        at = out.feed(bytes, at, bytes.length)
        out.headerDone = false
        if out.done then
          over ||= floods.sent(out)
          ledger.server(out)
          out.reset()
      over

    // The server's layer is told its client has gone (failed, not ended: it may hold part of a frame); the client gets
    // a GOAWAY after what was sent, then the close, which a client that reads nothing gets a second later without it.
    private def cut(code: Int): Unit =
      cancelTimer(Http2Watch.Deadlines)
      scheduleOnce(Http2Watch.Closing, 1.second)
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
  private val Closing = "closing"
