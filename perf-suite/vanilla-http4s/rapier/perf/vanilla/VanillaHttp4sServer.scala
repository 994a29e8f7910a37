package rapier.perf.vanilla

import cats.effect.unsafe.IORuntime
import cats.effect.{IO, Resource}
import cats.syntax.semigroupk.*
import com.comcast.ip4s.{Port, ipv4}
import fs2.io.file.Path
import fs2.io.net.tls.{TLSContext, TLSParameters}
import org.http4s.dsl.io.*
import org.http4s.ember.server.EmberServerBuilder
import scala.util.chaining.*
import org.http4s.headers.`Content-Type`
import org.http4s.server.Server
import org.http4s.server.Router
import org.http4s.server.middleware.GZip
import org.http4s.server.staticcontent.{FileService, fileService}
import org.http4s.server.websocket.WebSocketBuilder2
import org.http4s.websocket.WebSocketFrame
import org.http4s.{HttpRoutes, MediaType, Request, Response, ServerSentEvent, StaticFile}
import rapier.perf.common.{PerfApi, PerfServer, ServerConfig, Ticks, TlsFiles}

/**
 * The suite's endpoints written directly on http4s with its DSL, as an http4s user would, on Ember with its defaults:
 * each route number's six endpoints one `HttpRoutes.of`, and for 128 of them (the Multi variant) the 128 routes
 * combined with `<+>`, which http4s tries one after another, as the seeds' vanilla http4s server did. Bodies read with
 * `as[String]` and `as[Array[Byte]]`, a streamed one folded over its fs2 chunks, the file sent with `StaticFile`; the
 * WebSocket study's two endpoints and the events of the SSE study beside them.
 */
final class VanillaHttp4sServer extends PerfServer:
  private var release: IO[Unit] | Null = null
  private var sets = 0

  def start(config: ServerConfig): Int =
    sets = config.routes
    val routes = (0 until config.routes).map(VanillaHttp4sServer.routes).reduce(_ <+> _) <+>
      VanillaHttp4sServer.events <+> VanillaHttp4sServer.statics
    val (server, stop) = VanillaHttp4sServer
      .ember(routes, config, VanillaHttp4sServer.webSockets)
      .allocated
      .unsafeRunSync()(using IORuntime.global)
    release = stop
    server.address.getPort

  /** Each route number's routes are one `HttpRoutes`, tried in turn: how http4s routes composed routes. */
  def routeSets: Int = sets

  def stop(): Unit = if release != null then release.nn.unsafeRunSync()(using IORuntime.global)

object VanillaHttp4sServer:
  /**
   * Ember with its defaults, bound to every address on the suite's port, with WebSocket routes built with its builder
   * beside `routes`: shared with the Tapir server on it.
   */
  def ember(
      routes: HttpRoutes[IO],
      config: ServerConfig,
      webSockets: WebSocketBuilder2[IO] => HttpRoutes[IO] = _ => HttpRoutes.empty[IO]
  ): Resource[IO, Server] =
    val ember = EmberServerBuilder
      .default[IO]
      .withHost(ipv4"0.0.0.0")
      .withPort(Port.fromInt(config.port).getOrElse(sys.error(s"not a port: ${config.port}")))
      .withHttpWebSocketApp { builder =>
        val app = (routes <+> webSockets(builder)).orNotFound
        // http4s's own compression, its GZip middleware: gzip as Accept-Encoding asks, at the default level
        if config.compression then GZip(app) else app
      }
    // Ember's TLS, set as Rapier's Ember server sets it: fs2's context, TLS 1.3 and 1.2, ALPN offering HTTP/1.1, and
    // h2 before it with Ember's HTTP/2 on (its default settings)
    val protocols = if config.http2 then List("h2", "http/1.1") else List("http/1.1")
    config.tls
      .fold(ember) { files =>
        ember.withTLS(
          TLSContext.Builder.forAsync[IO].fromSSLContext(files.sslContext()),
          TLSParameters(applicationProtocols = Some(protocols), protocols = Some(TlsFiles.Protocols))
        )
      }
      .pipe(e => if config.http2 then e.withHttp2 else e)
      .build

  /**
   * The WebSocket study's `/ws/echo` and `/ws/ts` with http4s's own API, `WebSocketBuilder2` and an fs2 pipe of
   * frames: each text frame written back, or answered on the next tick of [[Ticks]] with the time then.
   */
  def webSockets(builder: WebSocketBuilder2[IO]): HttpRoutes[IO] = HttpRoutes.of[IO] {
    case GET -> Root / "ws" / "echo" => builder.build(_.collect { case text: WebSocketFrame.Text => text })
    case GET -> Root / "ws" / "ts" =>
      builder.build(_.collect { case text: WebSocketFrame.Text => text }.evalMap(_ => nextTick))
  }

  /** The time at the next tick, as a text frame. */
  val nextTick: IO[WebSocketFrame] = nextStamp.map(WebSocketFrame.Text(_))

  /** The time at the next tick of [[Ticks]]. */
  def nextStamp: IO[String] = IO.async_(answer => Ticks.onNext(stamp => answer(Right(stamp))))

  /**
   * `/sse/ts` with http4s's own server-sent events: an fs2 `Stream` of its `ServerSentEvent`s, an event at every tick
   * of [[Ticks]] with the time then.
   */
  val events: HttpRoutes[IO] = HttpRoutes.of[IO] { case GET -> Root / "sse" / "ts" =>
    Ok(fs2.Stream.repeatEval(nextStamp).map(stamp => ServerSentEvent(data = Some(stamp))))
  }

  private val json = `Content-Type`(MediaType.application.json)

  /** `/static/{name}` by http4s's own file service, with its defaults. */
  lazy val statics: HttpRoutes[IO] =
    Router("/static" -> fileService[IO](FileService.Config[IO](PerfApi.staticDirectory.toString)))

  /** A body declared larger than the suite's limit is refused before it is read. */
  private def within(request: Request[IO])(read: IO[Response[IO]]): IO[Response[IO]] =
    if request.contentLength.exists(_ > PerfApi.MaxBodySize) then PayloadTooLarge("too large") else read

  def routes(n: Int): HttpRoutes[IO] =
    val text = s"path$n"
    val bytes = s"pathBytes$n"
    val order = s"pathJson$n"
    val stream = s"pathStream$n"
    val file = s"pathFile$n"
    HttpRoutes.of[IO] {
      case GET -> Root / `text` / IntVar(id) => Ok(PerfApi.ok(id))
      case request @ POST -> Root / `text` =>
        within(request)(request.as[String].flatMap(s => Ok(PerfApi.ok(s.length))))
      case request @ POST -> Root / `bytes` =>
        within(request)(request.as[Array[Byte]].flatMap(b => Ok(PerfApi.ok(b.length))))
      case GET -> Root / `order` => Ok(PayloadCodecs.order(), json)
      case request @ POST -> Root / `order` =>
        within(request)(request.as[Array[Byte]].flatMap { b =>
          PayloadCodecs.echo(b, b.length) match
            case Some(out) => Ok(out, json)
            case None => BadRequest("bad json")
        })
      case request @ POST -> Root / `stream` =>
        request.body.chunks.compile.fold(0L)(_ + _.size).flatMap(count => Ok(PerfApi.ok(count)))
      case request @ GET -> Root / `file` =>
        StaticFile.fromPath(Path.fromNioPath(PerfApi.file), Some(request)).getOrElseF(NotFound())
    }
