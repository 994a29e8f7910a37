package org.apache.pekko.http.impl.engine.http2

import org.apache.pekko.http.impl.engine.http2.FrameEvent.{DataFrame, ParsedHeadersFrame, RstStreamFrame}
import org.apache.pekko.http.impl.engine.http2.FrameEvent.WindowUpdateFrame
import org.apache.pekko.http.impl.engine.http2.Http2Protocol.ErrorCode
import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler}
import org.apache.pekko.stream.{Attributes, BidiShape, Inlet, Outlet}

import scala.collection.mutable

/**
 * Two rules of RFC 9113 on a request's stream that pekko-http's HTTP/2 layer does not keep, between its streams (above)
 * and its header decoding (below). A request's `content-length` is held against the DATA its client sends (§8.1.1): a
 * stream whose DATA ends short of it or runs past it is malformed, reset with PROTOCOL_ERROR. A response complete
 * before its request is (§8.1) is followed by a reset with NO_ERROR, so the client stops sending. Either way the layer
 * is told the client reset the stream (the request's body, if still read, fails), and DATA still arriving on it is
 * dropped, its bytes given back to the connection's window.
 */
private[http] final class RapierRequestStreams
    extends GraphStage[BidiShape[FrameEvent, FrameEvent, FrameEvent, FrameEvent]]:
  private val fromLayer = Inlet[FrameEvent]("RapierRequestStreams.fromLayer")
  private val toClient = Outlet[FrameEvent]("RapierRequestStreams.toClient")
  private val fromClient = Inlet[FrameEvent]("RapierRequestStreams.fromClient")
  private val toLayer = Outlet[FrameEvent]("RapierRequestStreams.toLayer")
  val shape: BidiShape[FrameEvent, FrameEvent, FrameEvent, FrameEvent] =
    BidiShape(fromLayer, toClient, fromClient, toLayer)

  def createLogic(attributes: Attributes): GraphStageLogic = new GraphStageLogic(shape):
    // Streams whose client is still sending, with the bytes it has yet to send where it declared a length (else -1)
    private val sending = mutable.LongMap.empty[Long]
    // Streams reset here whose client may still be sending
    private val dropped = mutable.LongMap.empty[Unit]

    // Frames to the layer go out by `emit`: a reset meant for it may be queued while one of the client's is on its way
    setHandler(
      fromClient,
      new InHandler:
        def onPush(): Unit = grab(fromClient) match
          case headers @ ParsedHeadersFrame(stream, endStream, fields, _) =>
            sending.get(stream) match
              // trailers: the end of a body that had to be whole by now
              case Some(left) =>
                sending.remove(stream)
                if endStream && left > 0 then malformed(stream, 0, opened = true) else emit(toLayer, headers)
              case None =>
                val declared = RapierRequestStreams.declaredLength(fields)
                if declared > 0 && endStream then malformed(stream, 0, opened = false)
                else
                  if !endStream then sending.update(stream, declared)
                  emit(toLayer, headers)
          case data @ DataFrame(stream, endStream, payload) =>
            if dropped.contains(stream) then
              if endStream then dropped.remove(stream)
              if payload.size > 0 then emit(toClient, WindowUpdateFrame(0, payload.size))
              pull(fromClient)
            else
              sending.get(stream) match
                case Some(left) if left >= 0 =>
                  val after = left - payload.size
                  if after < 0 || endStream && after != 0 then malformed(stream, payload.size, opened = true)
                  else
                    if endStream then sending.remove(stream) else sending.update(stream, after)
                    emit(toLayer, data)
                case _ =>
                  if endStream then sending.remove(stream)
                  emit(toLayer, data)
          case reset @ RstStreamFrame(stream, _) =>
            sending.remove(stream)
            dropped.remove(stream)
            emit(toLayer, reset)
          case other => emit(toLayer, other)
        override def onUpstreamFinish(): Unit = complete(toLayer)
        override def onUpstreamFailure(e: Throwable): Unit = fail(toLayer, e)
    )
    // Each direction ends on its own: the layer stops reading before it fails its output with what went wrong
    setHandler(toLayer, demandOf(fromClient))
    // Frames to the client go out by `emit` too: a WINDOW_UPDATE or reset of the client's side may hold the port
    setHandler(
      fromLayer,
      new InHandler:
        def onPush(): Unit = grab(fromLayer) match
          case reset @ RstStreamFrame(stream, _) =>
            sending.remove(stream)
            emit(toClient, reset)
          case data @ DataFrame(stream, true, _) => answered(stream, data)
          case headers @ ParsedHeadersFrame(stream, true, _, _) => answered(stream, headers)
          case frame => emit(toClient, frame)
        override def onUpstreamFinish(): Unit = complete(toClient)
        override def onUpstreamFailure(e: Throwable): Unit = fail(toClient, e)
    )
    setHandler(toClient, demandOf(fromLayer))

    // An outlet's demand passed to `in`, its cancellation too.
    private def demandOf(in: Inlet[FrameEvent]): OutHandler = new OutHandler:
      def onPull(): Unit = if !hasBeenPulled(in) && !isClosed(in) then pull(in)
      override def onDownstreamFinish(cause: Throwable): Unit = cancel(in, cause)

    // The layer's last frame of a response: if its client is still sending, a reset with NO_ERROR follows it.
    private def answered(stream: Int, last: FrameEvent): Unit =
      if sending.contains(stream) then
        sending.remove(stream)
        drop(stream)
        emitMultiple(toClient, List(last, RstStreamFrame(stream, ErrorCode.NO_ERROR)))
        emit(toLayer, RstStreamFrame(stream, ErrorCode.CANCEL))
      else emit(toClient, last)

    // `stream` broke its declared length: reset on both sides; a frame's `bytes` dropped with it.
    private def malformed(stream: Int, bytes: Int, opened: Boolean): Unit =
      sending.remove(stream)
      drop(stream)
      val reset = RstStreamFrame(stream, ErrorCode.PROTOCOL_ERROR)
      if bytes > 0 then emitMultiple(toClient, List(reset, WindowUpdateFrame(0, bytes))) else emit(toClient, reset)
      // The layer, which saw the stream open, ends it as if its client had reset it
      if opened then emit(toLayer, reset) else pull(fromClient)

    private def drop(stream: Int): Unit =
      if dropped.size < RapierRequestStreams.MaxDropped then dropped.update(stream, ())

private[http] object RapierRequestStreams:
  /** The content-length among a request's fields, -1 without one or with one the layer will refuse itself. */
  def declaredLength(fields: Seq[(String, AnyRef)]): Long =
    fields.collectFirst { case ("content-length", value: String) => value.toLongOption.getOrElse(-1L) }.getOrElse(-1L)

  // Streams reset here and remembered until their client stops sending: past it, one is forgotten at once
  private val MaxDropped = 1_000
