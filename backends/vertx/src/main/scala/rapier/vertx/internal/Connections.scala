package rapier.vertx.internal

import io.netty.channel.{Channel, ChannelFutureListener}
import io.netty.handler.codec.http2.Http2ConnectionHandler
import io.vertx.core.Handler
import io.vertx.core.http.{Http1ServerConfig, HttpConnection}
import io.vertx.core.http.impl.http1.VertxHttpRequestDecoder
import io.netty.util.{AttributeKey, ReferenceCountUtil}
import io.vertx.core.net.impl.{ConnectionBase, VertxConnection}

import rapier.nettyhttp.Http2Watch
import rapier.server.Http2
import rapier.server.spi.{Admission, BodyBudget, Http2Stalls}

import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.duration.Duration
import java.util.concurrent.atomic.AtomicInteger

/**
 * The open connections of a server, counted against the limit; the ones closing after a refusal; whether the server
 * is shutting down; and what decides which of their requests are served, and how (`admission`), with the budget of the
 * body bytes they hold. As the server's connection handler (`accepts`), it also puts Rapier's
 * [[StrictRequestDecoder]] in place of Vert.x's in each connection's pipeline, when given the decoder's configuration.
 */
private[vertx] final class Connections(
    val admission: Admission,
    max: Int = Int.MaxValue,
    decoder: Http1ServerConfig | Null = null,
    headTimeout: Duration = Duration.Inf,
    accepts: Boolean = false,
    idleTimeoutNanos: Long = 0L,
    http2: Http2 = Http2()
) extends Handler[HttpConnection]:
  private val open = AtomicInteger()
  private val stalls = Http2Stalls(http2.maxStalledStreams)
  private val refused = ConcurrentHashMap.newKeySet[HttpConnection]()

  /** The request-body bytes the connections hold, against the server's budget. */
  def bodies: BodyBudget = admission.budget

  /** Set when the server starts shutting down: requests arriving after it are answered 503, and connections close. */
  @volatile var draining: Boolean = false

  /**
   * Counts a new connection in, or closes it when `max` are open already. Vert.x reports a connection as it sets up its
   * HTTP/1.1 pipeline, on accept or after the TLS handshake: h2c is off (see `VertxServerOptions.httpServerOptions`),
   * so there is no waiting for the first bytes to tell HTTP/1.1 from HTTP/2. An HTTP/2 connection (h2 by ALPN) is
   * reported once its client's first SETTINGS frame is read.
   */
  def handle(connection: HttpConnection): Unit =
    if open.incrementAndGet() > max then
      open.decrementAndGet()
      Connections.close(connection)
    else
      connection.closeHandler(_ => open.decrementAndGet())
      Connections.releaseParkedOnClose(connection)
      Connections.dropSetupDeadline(connection)
      if decoder != null then strict(connection)
      watchIdle(connection)
      refuseRenegotiation(connection)

  /**
   * A request's connection, seen by a handler on an application's own server (as its request handler, or mounted on
   * its router), which sees no connection open: its parked messages are released when it closes, once per connection.
   */
  def serving(connection: HttpConnection): Unit =
    if !accepts then
      val channel = Connections.channel(connection)
      if channel != null && channel.nn.attr(Connections.Watched).setIfAbsent(java.lang.Boolean.TRUE) == null then
        Connections.releaseParkedOnClose(connection)

  /**
   * Puts Rapier's idle timeout in the connection's pipeline, before Vert.x's connection handler: [[IdleClose]] on an
   * HTTP/1.1 connection, an [[Http2Watch]] (stalled answers, idleness, the header-block deadline) on an HTTP/2 one,
   * whose handler is Netty's; it takes what passed before it from that handler.
   */
  private def watchIdle(connection: HttpConnection): Unit =
    val channel = Connections.channel(connection)
    if channel != null then
      val pipeline = channel.nn.pipeline
      pipeline.get(IdleClose.Before) match
        case http2: Http2ConnectionHandler =>
          val watch = new Http2Watch(http2, this.http2, stalls, idleTimeoutNanos, rapier.timeoutNanos(headTimeout))
          pipeline.addBefore(IdleClose.Before, IdleClose.Name, watch)
          watch.adopt(begun = true)
        case null if idleTimeoutNanos > 0 => pipeline.addLast(IdleClose.Name, IdleClose(idleTimeoutNanos))
        case _ if idleTimeoutNanos > 0 =>
          pipeline.addBefore(IdleClose.Before, IdleClose.Name, IdleClose(idleTimeoutNanos))
        case _ => ()

  /**
   * Reads a TLS connection's records before Vert.x's `SslHandler` (the JDK's engine, which honours a client's
   * renegotiation), and closes it at one: put in place now, its handshake over, when the client waits for the server's
   * Finished (TLS 1.2) or sends no handshake records any more (TLS 1.3).
   */
  private def refuseRenegotiation(connection: HttpConnection): Unit =
    val channel = Connections.channel(connection)
    if channel != null then
      val tls = channel.nn.pipeline.context(classOf[io.netty.handler.ssl.SslHandler])
      if tls != null then
        channel.nn.pipeline.addBefore(tls.name, "rapierTlsRecords", rapier.nettyhttp.JdkTls.NoRenegotiation(true))

  /**
   * Replaces Vert.x's request decoder with the strict one. Vert.x calls the connection handler as it sets the
   * connection's pipeline up, before it decodes anything from it: with h2c on, it would set the pipeline up only once
   * the first bytes told HTTP/1.1 from HTTP/2, and call this after decoding the first request.
   */
  private def strict(connection: HttpConnection): Unit =
    val channel = Connections.channel(connection)
    if channel != null then
      channel.nn.pipeline.get(Connections.DecoderName) match
        case _: StrictRequestDecoder => ()
        case _: VertxHttpRequestDecoder =>
          channel.nn.pipeline.replace(
            Connections.DecoderName,
            Connections.DecoderName,
            StrictRequestDecoder(decoder.nn, headTimeout)
          )
        case _ => () // HTTP/2, or a pipeline Vert.x set up otherwise: nothing folds there

  /**
   * Marks a connection as closing after a refusal: nothing more it carries is served. It is forgotten when its
   * channel closes (a listener on the channel rather than Vert.x's single close handler, which a mounted Rapier must
   * leave to the application). A connection whose channel Vert.x doesn't show is not marked: its refusal closes it.
   */
  def refuse(connection: HttpConnection): Unit =
    val channel = Connections.channel(connection)
    if channel != null && refused.add(connection) then
      val forget: ChannelFutureListener = _ => refused.remove(connection)
      channel.nn.closeFuture.addListener(forget)

  private val webSockets = ConcurrentHashMap.newKeySet[VertxWebSocket]()

  def opened(webSocket: VertxWebSocket): Unit = webSockets.add(webSocket)
  def closed(webSocket: VertxWebSocket): Unit = webSockets.remove(webSocket)

  /** The server is stopping: each open WebSocket closes with 1001 before Vert.x closes the connections. */
  def closeWebSockets(): Unit = webSockets.forEach(_.goingAway())

  def isRefused(connection: HttpConnection): Boolean = !refused.isEmpty && refused.contains(connection)

  /** How many refused connections are still open. */
  def refusedCount: Int = refused.size

private[vertx] object Connections:
  /** The name Vert.x gives its request decoder in a connection's pipeline. */
  private val DecoderName = "httpDecoder"

  /** The Netty channel under a Vert.x connection, where Vert.x exposes it. */
  def channel(connection: HttpConnection): Channel | Null = connection match
    case c: ConnectionBase => c.channel
    case _ => null

  /** Set on a channel whose parked messages are released when it closes. */
  private val Watched = AttributeKey.valueOf[java.lang.Boolean]("rapier.vertx.releasesParked")

  // Where a Vert.x connection parks what it reads while paused, or null if this Vert.x keeps it elsewhere
  private val parked: java.lang.reflect.Field | Null =
    try
      val field = classOf[VertxConnection].getDeclaredField("pending")
      field.setAccessible(true)
      if classOf[java.util.Deque[?]].isAssignableFrom(field.getType) then field else null
    catch case _: ReflectiveOperationException | _: RuntimeException => null

  /**
   * Releases, once `connection` has closed, what it read while paused and never handed on. Vert.x (5.2) parks the
   * messages a paused connection reads (a pipelined request's body, read while the response before it is written; a
   * body read past what a paused request queues) and drops the queue unreleased when the connection closes: their
   * buffers, from Netty's pool, would never return to it. The release runs on the channel's event loop after the
   * channel's close has been handled there (its last reads with it), the only thread Vert.x touches the queue from.
   */
  private def releaseParkedOnClose(connection: HttpConnection): Unit =
    val field = parked
    val ch = channel(connection)
    if field != null && ch != null && connection.isInstanceOf[VertxConnection] then
      val release: ChannelFutureListener = _ =>
        ch.nn.eventLoop.execute { () =>
          field.nn.get(connection) match
            case queue: java.util.Deque[?] =>
              var message = queue.poll()
              while message != null do
                ReferenceCountUtil.release(message)
                message = queue.poll()
            case _ => ()
        }
      ch.nn.closeFuture.addListener(release)

  /**
   * Takes out the idle timeout of Vert.x's that held a connection to a deadline until it was set up (see
   * `VertxServer.bind`): Rapier's own watches take over from here.
   */
  private def dropSetupDeadline(connection: HttpConnection): Unit =
    val ch = channel(connection)
    if ch != null && ch.nn.pipeline.get(SetupDeadline) != null then ch.nn.pipeline.remove(SetupDeadline)

  /** The name of Vert.x's idle timeout in a connection's pipeline. */
  private val SetupDeadline = "idle"

  /** Closes at once, not after the requests Vert.x may still hold for it. */
  def close(connection: HttpConnection): Unit =
    val ch = channel(connection)
    if ch != null then ch.nn.close() else connection.close()
