package rapier.perf.vanilla

import io.vertx.core.buffer.Buffer
import io.vertx.core.http.{HttpMethod, HttpServerOptions, HttpServerRequest, HttpVersion}
import io.vertx.core.net.PemKeyCertOptions
import io.vertx.core.{Handler, Vertx}
import io.vertx.ext.web.handler.BodyHandler
import io.vertx.ext.web.{Router, RoutingContext}
import rapier.perf.common.{PerfApi, ServerConfig, Ticks, TlsFiles}

import java.nio.charset.StandardCharsets
import java.util.concurrent.atomic.AtomicInteger

/**
 * The suite's endpoints written directly on Vert.x, as a Vert.x user would. With one route: a plain request handler,
 * routes in a hash map on the first path segment, bodies read with `request.body()`. With 128 (the Multi variant): a
 * vertx-web `Router` with a route per endpoint and a `BodyHandler` for the POSTs. One source, compiled on both sides
 * of the suite: on Vert.x 5 beside Rapier, and on the Vert.x 4 Tapir brings.
 */
final class VanillaVertxServer extends HttpServerPerfServer:
  protected def serve(vertx: Vertx, config: ServerConfig): (HttpServerOptions, Handler[HttpServerRequest]) =
    val options = HttpServerOptions().setMaxInitialLineLength(8192).setMaxHeaderSize(16384).setTcpNoDelay(true)
    // Vert.x's own compression: gzip or deflate at level 6, as Rapier's; of every size (this source compiles on Vert.x
    // 4 too, which has no threshold), which changes nothing on the 64 KB answer it is measured on
    if config.compression then options.setCompressionSupported(true)
    // Vert.x's TLS as Rapier sets it: its default engine, TLS 1.3 and 1.2, ALPN offering HTTP/1.1, and h2 first
    // with HTTP/2 on (Vert.x's own HTTP/2 settings)
    config.tls.foreach { files =>
      options
        .setSsl(true)
        .setKeyCertOptions(PemKeyCertOptions().setCertPath(files.certificate.toString).setKeyPath(files.key.toString))
        .setEnabledSecureTransportProtocols(java.util.LinkedHashSet(java.util.List.of(TlsFiles.Protocols*)))
        .setUseAlpn(true)
        .setAlpnVersions(
          if config.http2 then java.util.List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1)
          else java.util.List.of(HttpVersion.HTTP_1_1)
        )
    }
    val handler: Handler[HttpServerRequest] =
      if config.routes == 1 then VanillaVertxServer.PlainHandler() else VanillaVertxServer.router(vertx, config.routes)
    (options, handler)

object VanillaVertxServer:
  private def text(request: HttpServerRequest, status: Int, body: String): Unit =
    request.response.setStatusCode(status).putHeader("Content-Type", PerfApi.TextPlain).end(body)

  private def json(request: HttpServerRequest, body: Array[Byte] | Null): Unit =
    if body == null then text(request, 400, "bad json")
    else request.response.putHeader("Content-Type", PerfApi.Json).end(Buffer.buffer(body.nn))

  private def echo(body: Buffer): Array[Byte] | Null =
    val bytes = body.getBytes
    PayloadCodecs.echo(bytes, bytes.length).orNull

  /** A body consumed as it arrives, through Vert.x's own stream API: each chunk counted, none kept. */
  private def stream(request: HttpServerRequest): Unit =
    var count = 0L
    request.handler(chunk => count += chunk.length)
    request.endHandler(_ => text(request, 200, PerfApi.ok(count)))

  /** The file, with Vert.x's `sendFile` (zero-copy). */
  private def sendFile(request: HttpServerRequest): Unit =
    request.response.putHeader("Content-Type", "application/octet-stream").sendFile(PerfApi.file.toString)

  /** A static file with Vert.x's `sendFile`, as a hand-written file service knowing the few it serves. */
  private def staticFile(request: HttpServerRequest, name: String, contentType: String): Unit =
    request.response.putHeader("Content-Type", contentType).sendFile(PerfApi.staticDirectory.resolve(name).toString)

  /**
   * `/ws/echo` and `/ws/ts` with Vert.x's own WebSocket API: each text message written back, or answered on the next
   * tick of [[Ticks]] with the time then, taken on the clock's thread and written on the socket's context.
   */
  private def webSocket(request: HttpServerRequest, ticked: Boolean): Unit =
    request.toWebSocket().onSuccess { ws =>
      if !ticked then ws.textMessageHandler(m => ws.writeTextMessage(m))
      else
        val context = Vertx.currentContext
        val waiting = AtomicInteger()
        val tick: Runnable = () =>
          val n = waiting.getAndSet(0)
          if n > 0 then
            val stamp = Ticks.stamp()
            context.runOnContext(_ => for _ <- 1 to n do ws.writeTextMessage(stamp))
        Ticks.add(tick)
        ws.textMessageHandler(_ => waiting.incrementAndGet())
        ws.closeHandler(_ => Ticks.remove(tick))
    }

  /**
   * `/sse/ts`: a chunked `text/event-stream` response with an event at every tick of [[Ticks]], its data the time
   * then, taken on the clock's thread and written on the connection's context.
   */
  private def events(request: HttpServerRequest): Unit =
    val response = request.response
    response.setChunked(true).putHeader("Content-Type", "text/event-stream").putHeader("Cache-Control", "no-cache")
    response.write(Buffer.buffer()) // the head at once
    val context = Vertx.currentContext
    val tick: Runnable = () =>
      val event = s"data: ${Ticks.stamp()}\n\n"
      context.runOnContext(_ => if !response.closed then response.write(event))
    Ticks.add(tick)
    response.closeHandler(_ => Ticks.remove(tick))

  /** One route of each kind, in a hash map on the first path segment. */
  final class PlainHandler extends Handler[HttpServerRequest]:
    private val Text = 0
    private val Bytes = 1
    private val Json = 2
    private val Stream = 3
    private val File = 4
    private val WebSocket = 5
    private val Events = 6
    private val Static = 7
    private val kinds = java.util.HashMap[String, Integer]()
    kinds.put("path0", Text)
    kinds.put("pathBytes0", Bytes)
    kinds.put("pathJson0", Json)
    kinds.put("pathStream0", Stream)
    kinds.put("pathFile0", File)
    kinds.put("ws", WebSocket)
    kinds.put("sse", Events)
    kinds.put("static", Static)

    def handle(request: HttpServerRequest): Unit =
      val path = request.path
      val second = path.indexOf('/', 1)
      val first = if second < 0 then path.substring(1) else path.substring(1, second)
      val kind = kinds.get(first)
      val method = request.method
      if kind == null then text(request, 404, "not found")
      else if kind == Text && method == HttpMethod.GET && second > 0 then
        path.substring(second + 1).toIntOption match
          case Some(id) => text(request, 200, PerfApi.ok(id))
          case None => text(request, 400, "bad id")
      else if kind == File && method == HttpMethod.GET && second < 0 then sendFile(request)
      else if kind == Static && method == HttpMethod.GET && second > 0 then
        path.substring(second + 1) match
          case PerfApi.StaticSmall => staticFile(request, PerfApi.StaticSmall, "text/css; charset=UTF-8")
          case PerfApi.StaticLarge => staticFile(request, PerfApi.StaticLarge, "application/octet-stream")
          case _ => text(request, 404, "not found")
      else if kind == Json && method == HttpMethod.GET && second < 0 then json(request, PayloadCodecs.order())
      else if kind == WebSocket && method == HttpMethod.GET && (path == "/ws/echo" || path == "/ws/ts") then
        webSocket(request, ticked = path == "/ws/ts")
      else if kind == Events && method == HttpMethod.GET && path == "/sse/ts" then events(request)
      else if second >= 0 || method != HttpMethod.POST then text(request, 404, "not found")
      else if kind == Stream then stream(request)
      else
        val length = request.getHeader("Content-Length")
        if length != null && length.toLongOption.exists(_ > PerfApi.MaxBodySize) then text(request, 413, "too large")
        else
          request.body.onSuccess { body =>
            kind.intValue match
              case 0 => text(request, 200, PerfApi.ok(body.toString(StandardCharsets.UTF_8).length))
              case 1 => text(request, 200, PerfApi.ok(body.length))
              case _ => json(request, echo(body))
          }

  /** 128 routes of each kind on a vertx-web router, as its documentation shows. */
  def router(vertx: Vertx, routes: Int): Router =
    val router = Router.router(vertx)
    val bodies = BodyHandler.create().setBodyLimit(PerfApi.MaxBodySize.toLong)
    for n <- 0 until routes do
      router.get(s"/path$n/:id").handler { (ctx: RoutingContext) =>
        ctx.pathParam("id").toIntOption match
          case Some(id) => text(ctx.request, 200, PerfApi.ok(id))
          case None => text(ctx.request, 400, "bad id")
      }
      router.post(s"/path$n").handler(bodies).handler { (ctx: RoutingContext) =>
        text(ctx.request, 200, PerfApi.ok(ctx.body.asString("UTF-8").length))
      }
      router.post(s"/pathBytes$n").handler(bodies).handler { (ctx: RoutingContext) =>
        text(ctx.request, 200, PerfApi.ok(ctx.body.length))
      }
      router.post(s"/pathJson$n").handler(bodies).handler { (ctx: RoutingContext) =>
        json(ctx.request, echo(ctx.body.buffer))
      }
      router.post(s"/pathStream$n").handler((ctx: RoutingContext) => stream(ctx.request))
      router.get(s"/pathFile$n").handler((ctx: RoutingContext) => sendFile(ctx.request))
    router
