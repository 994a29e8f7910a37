package rapier.vertx.internal

import io.netty.channel.{ChannelDuplexHandler, ChannelHandlerContext, ChannelPromise}
import io.netty.handler.codec.http.{HttpRequest, HttpResponse, HttpResponseStatus, LastHttpContent}
import rapier.nettyhttp.IdleWatch

/**
 * The idle timeout of Rapier's own Vert.x server, in place of Vert.x's (Netty's `IdleStateHandler`, which reads the
 * clock on every read and puts a listener on every write's promise, and which closes a connection whose request is
 * still being answered): the connection's reads and writes are counted by an [[IdleWatch]], as on Rapier's Netty
 * backend, which closes the connection once it has had no traffic and no request in progress for the timeout.
 *
 * It sits between Vert.x's HTTP codec and its connection handler, where requests and responses go by as Netty's HTTP
 * messages: a request's head starts one in progress, a response's end (its last content) ends one. A WebSocket's
 * upgrade ends the watch: a WebSocket has its endpoint's own idle timeout.
 */
private[vertx] final class IdleClose(timeoutNanos: Long) extends ChannelDuplexHandler:
  private var watch: IdleWatch | Null = null
  private var inProgress = 0

  override def handlerAdded(ctx: ChannelHandlerContext): Unit =
    val w = IdleWatch(ctx, timeoutNanos, () => inProgress == 0, () => ctx.close())
    watch = w
    w.start()

  override def handlerRemoved(ctx: ChannelHandlerContext): Unit = watch.nn.stop()

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    watch.nn.touch()
    if msg.isInstanceOf[HttpRequest] then inProgress += 1
    ctx.fireChannelRead(msg)

  override def write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise): Unit =
    watch.nn.touch()
    msg match
      case r: HttpResponse if r.status.code == HttpResponseStatus.SWITCHING_PROTOCOLS.code => watch.nn.stop()
      case _ =>
    if msg.isInstanceOf[LastHttpContent] && inProgress > 0 then inProgress -= 1
    ctx.write(msg, promise)

private[vertx] object IdleClose:
  /** The name of Vert.x's connection handler in a connection's pipeline, before which the watch goes. */
  val Before = "handler"
  val Name = "rapierIdle"
