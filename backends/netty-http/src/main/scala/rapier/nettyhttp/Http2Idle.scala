package rapier.nettyhttp

import io.netty.buffer.Unpooled
import io.netty.channel.{ChannelDuplexHandler, ChannelFutureListener, ChannelHandlerContext, ChannelPromise}
import io.netty.handler.codec.http2.{Http2ConnectionHandler, Http2Error}

import java.util.concurrent.TimeUnit

/**
 * Ends an HTTP/2 connection that has nothing to do or can't go on: with no stream open and no frame read or written
 * for the idle timeout (the [[IdleWatch]] of HTTP/1.1, counting streams rather than requests), or with responses held
 * for a window its client never opens, for as long (whatever else it sends meanwhile: a client that pings can't keep
 * its stalled streams' responses in the server's memory). A header block begun must end within `headNanos`, as an
 * HTTP/1.1 head must: a client trickling CONTINUATIONs would hold the connection, and the block, for as long as it
 * liked, each frame keeping it from idling.
 *
 * It goes just before `http2`, Netty's connection handler (a frame codec, or a server's own subclass), where it sees
 * the connection's bytes both ways. `queuesAbove` says that the server keeps a stream's response in a queue of its own
 * until the stream's window opens (Vert.x), rather than in Netty's flow controller: a stream whose window is shut then
 * counts as held, whether or not the codec has its bytes.
 */
private[rapier] final class Http2Idle(
    http2: Http2ConnectionHandler,
    timeoutNanos: Long,
    headNanos: Long,
    queuesAbove: Boolean = false
) extends ChannelDuplexHandler,
      Runnable:
  private var watch: IdleWatch | Null = null
  private var ctx: ChannelHandlerContext = null
  private var stall: io.netty.util.concurrent.ScheduledFuture[?] | Null = null
  // The windows of the connection and its streams at the last check that found a stream held for want of window
  private var lastWindows = -1L
  private var stalledChecks = 0
  private val blocks = if headNanos > 0 then HeaderBlocks.of(http2) else null
  private var blockCheck: io.netty.util.concurrent.ScheduledFuture[?] | Null = null
  // The stream of the header block pending at the last check, and how many checks in a row have seen it
  private var blockStream = 0
  private var blockChecks = 0

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    if timeoutNanos > 0 then
      watch = IdleWatch(ctx, timeoutNanos, () => http2.connection.numActiveStreams == 0, () => ctx.channel.close())
      watch.nn.start()
      schedule()
    if blocks != null then scheduleBlockCheck()

  override def handlerRemoved(ctx: ChannelHandlerContext): Unit =
    if watch != null then watch.nn.stop()
    if stall != null then stall.nn.cancel(false)
    if blockCheck != null then blockCheck.nn.cancel(false)

  private def schedule(): Unit =
    stall = ctx.executor.schedule(this, timeoutNanos / 2, TimeUnit.NANOSECONDS)

  def run(): Unit =
    if ctx.channel.isActive then
      val windows = heldWindows()
      if windows >= 0 && windows == lastWindows then stalledChecks += 1 else stalledChecks = 0
      lastWindows = windows
      if stalledChecks >= 2 then
        end("Closing an HTTP/2 connection whose client has opened no window for the idle timeout")
      else schedule()

  // A quarter of the deadline apart: a block seen pending by five checks in a row has had the deadline, and at most a
  // quarter more
  private def scheduleBlockCheck(): Unit =
    val check: Runnable = () => checkBlock()
    blockCheck = ctx.executor.schedule(check, math.max(headNanos / 4, 10_000_000L), TimeUnit.NANOSECONDS)

  private def checkBlock(): Unit =
    if ctx.channel.isActive then
      val stream = blocks.nn.pending
      if stream != 0 && stream == blockStream then blockChecks += 1 else blockChecks = 0
      blockStream = stream
      if blockChecks >= 4 then end("Closing an HTTP/2 connection whose client has not ended a header block in time")
      else scheduleBlockCheck()

  // GOAWAY, then closed from here: the handler's own close would wait for the held streams to end first
  private def end(why: String): Unit =
    Http2Idle.log.debug(why)
    val handlerContext = ctx.pipeline.context(http2)
    val closeNow: ChannelFutureListener = _ => ctx.close()
    if handlerContext == null then ctx.close()
    else
      val last = http2.connection.remote.lastStreamCreated
      http2
        .goAway(handlerContext, last, Http2Error.NO_ERROR.code, Unpooled.EMPTY_BUFFER, handlerContext.newPromise)
        .addListener(closeNow)
      handlerContext.flush()

  // The sum of the windows, when a stream's response waits for window; -1 when none does
  private def heldWindows(): Long =
    val connection = http2.connection
    val flow = connection.remote.flowController
    val connectionWindow = flow.windowSize(connection.connectionStream)
    var held = false
    var sum = connectionWindow.toLong
    connection.forEachActiveStream { stream =>
      val window = flow.windowSize(stream)
      sum += window
      if flow.hasFlowControlled(stream) && (window <= 0 || connectionWindow <= 0) then held = true
      else if queuesAbove && !flow.isWritable(stream) then held = true
      true
    }
    if held then sum else -1L

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    if watch != null then watch.nn.touch()
    ctx.fireChannelRead(msg)

  override def write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise): Unit =
    if watch != null then watch.nn.touch()
    ctx.write(msg, promise)

private object Http2Idle:
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[Http2Idle])
