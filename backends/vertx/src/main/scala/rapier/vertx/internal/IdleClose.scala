package rapier.vertx.internal

import io.netty.channel.{ChannelDuplexHandler, ChannelHandlerContext, ChannelPromise}
import io.netty.handler.codec.http.{HttpRequest, HttpResponse, HttpResponseStatus, LastHttpContent}

import java.util.concurrent.TimeUnit

/**
 * The idle timeout of Rapier's own Vert.x server, in place of Vert.x's (Netty's `IdleStateHandler`, which reads the
 * clock on every read and puts a listener on every write's promise, and which closes a connection whose request is
 * still being answered): it counts the connection's reads and writes, and a check every half timeout closes the
 * connection once two checks in a row have seen no traffic while no request was in progress. A connection idle for
 * the timeout closes within one and a half timeouts, as on Rapier's Netty backend.
 *
 * It sits between Vert.x's HTTP codec and its connection handler, where requests and responses go by as Netty's HTTP
 * messages: a request's head starts one in progress, a response's end (its last content) ends one. A WebSocket's
 * upgrade ends the watch: a WebSocket has its endpoint's own idle timeout.
 */
private[vertx] final class IdleClose(timeoutNanos: Long) extends ChannelDuplexHandler, Runnable:
  private var ctx: ChannelHandlerContext | Null = null
  private var activity = 0
  private var seen = -1
  private var quietChecks = 0
  private var inProgress = 0
  private var stopped = false

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    this.ctx = ctx
    schedule()

  override def handlerRemoved(ctx: ChannelHandlerContext): Unit = stopped = true

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    activity += 1
    if msg.isInstanceOf[HttpRequest] then inProgress += 1
    ctx.fireChannelRead(msg)

  override def write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise): Unit =
    activity += 1
    msg match
      case r: HttpResponse if r.status.code == HttpResponseStatus.SWITCHING_PROTOCOLS.code => stopped = true
      case _ =>
    if msg.isInstanceOf[LastHttpContent] && inProgress > 0 then inProgress -= 1
    ctx.write(msg, promise)

  def run(): Unit =
    val c = ctx.nn
    if !stopped && c.channel.isActive then
      if activity == seen && inProgress == 0 then
        quietChecks += 1
        if quietChecks >= 2 then c.channel.close() else schedule()
      else
        seen = activity
        quietChecks = 0
        schedule()

  private def schedule(): Unit = ctx.nn.executor.schedule(this, timeoutNanos / 2, TimeUnit.NANOSECONDS)

private[vertx] object IdleClose:
  /** The name of Vert.x's connection handler in a connection's pipeline, before which the watch goes. */
  val Before = "handler"
  val Name = "rapierIdle"
