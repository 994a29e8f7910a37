package rapier.perf.servers

import cats.effect.unsafe.IORuntime
import cats.effect.{IO, Resource}
import io.vertx.core.Vertx
import rapier.*
import rapier.cats.{catsMonad, fs2Body, fs2SseBody, fs2WebSocketBody}
import rapier.http4s.{Http4sServer, Http4sServerOptions}
import rapier.json.jsoniter.jsonBody
import rapier.netty.cats.NettyCatsServer
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig}
import rapier.perf.vanilla.PayloadCodecs.given
import rapier.perf.vanilla.VanillaHttp4sServer
import rapier.server.*
import rapier.server.files.staticFiles
import rapier.vertx.cats.VertxCatsServer

import scala.concurrent.duration.Duration

/**
 * The suite's endpoints with cats-effect `IO` logic, as an `IO` user writes them: `IO.pure` for what answers at once, a
 * streamed body as an fs2 stream whose chunks are counted, the server a `Resource[IO, Binding]` on the global runtime.
 */
object RapierCatsServer:
  private val orderJson = jsonBody[Order]

  def endpoints(n: Int): List[ServerEndpoint[IO]] = List(
    endpoint.get.in(s"path$n" / path[Int]("id")).out(stringBody).serverLogicSuccess[IO](id => IO.pure(PerfApi.ok(id))),
    endpoint.post.in(s"path$n").in(stringBody).out(stringBody).serverLogicSuccess[IO](s =>
      IO.pure(PerfApi.ok(s.length))
    ),
    endpoint.post
      .in(s"pathBytes$n")
      .in(byteArrayBody)
      .out(stringBody)
      .serverLogicSuccess[IO](b => IO.pure(PerfApi.ok(b.length))),
    endpoint.post.in(s"pathJson$n").in(orderJson).out(orderJson).serverLogicSuccess[IO](IO.pure),
    endpoint.get.in(s"pathJson$n").out(orderJson).serverLogicSuccess[IO](_ => IO.pure(PerfApi.order)),
    endpoint.post.in(s"pathStream$n").in(fs2Body[IO]).out(stringBody).serverLogicSuccess[IO] { body =>
      body.chunks.compile.fold(0L)(_ + _.size).map(PerfApi.ok)
    },
    endpoint.get.in(s"pathFile$n").out(fileBody).serverLogicSuccess[IO](_ => IO.pure(PerfApi.file))
  )

  /**
   * The WebSocket study's two endpoints as fs2 pipes: each message written back, or answered on the next tick with the
   * time then (the vanilla twin's clock, `VanillaHttp4sServer.nextStamp`); the SSE study's events beside them.
   */
  val webSockets: List[ServerEndpoint[IO]] = List(
    endpoint.get.in("ws" / "echo").out(fs2WebSocketBody[IO, String, String]).serverLogicSuccess[IO] { _ =>
      IO.pure(in => in)
    },
    endpoint.get.in("ws" / "ts").out(fs2WebSocketBody[IO, String, String]).serverLogicSuccess[IO] { _ =>
      IO.pure(_.evalMap(_ => VanillaHttp4sServer.nextStamp))
    },
    // The SSE study's events: one at every tick, with the time then, as the vanilla http4s twin's; no keep-alive, as
    // the twin has none (fs2's keep-alive merge costs a fiber hop per event: measured apart in docs/perf)
    endpoint.get.in("sse" / "ts").out(fs2SseBody[IO](Duration.Inf)).serverLogicSuccess[IO] { _ =>
      IO.pure(fs2.Stream.repeatEval(VanillaHttp4sServer.nextStamp).map(ServerSentEvent.data))
    }
  )

  /** A server resource, used until `stop`. */
  abstract class Running extends PerfServer:
    private var release: IO[Unit] | Null = null
    protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[IO]]): Resource[IO, Binding]

    def start(config: ServerConfig): Int =
      val endpoints = (0 until config.routes).toList.flatMap(RapierCatsServer.endpoints) ++
        RapierCatsServer.webSockets :+
        staticFiles[IO]("static", PerfApi.staticDirectory)
      val (binding, stop) = server(config, endpoints).allocated.unsafeRunSync()(using IORuntime.global)
      release = stop
      binding.port

    /** One server compiles every endpoint into one routing trie. */
    def routeSets: Int = 1

    def stop(): Unit = if release != null then release.nn.unsafeRunSync()(using IORuntime.global)

/** [[RapierCatsServer]]'s endpoints on Rapier's Netty server for `IO`. */
final class RapierNettyCatsServer extends RapierCatsServer.Running:
  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[IO]]): Resource[IO, Binding] =
    NettyCatsServer[IO](endpoints, RapierNettyServer.options(config)).start()

/** [[RapierCatsServer]]'s endpoints on Rapier's Vert.x server for `IO`. */
final class RapierVertxCatsServer extends RapierCatsServer.Running:
  private var vertx: Vertx | Null = null

  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[IO]]): Resource[IO, Binding] =
    val v = RapierVertxServer.newVertx(config)
    vertx = v
    VertxCatsServer[IO](endpoints, RapierVertxServer.options(config)).withVertx(v).start()

  override def stop(): Unit =
    super.stop()
    RapierVertxServer.close(vertx)

/** [[RapierCatsServer]]'s endpoints on Rapier's standalone Ember server (http4s). */
final class RapierHttp4sServer extends RapierCatsServer.Running:
  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[IO]]): Resource[IO, Binding] =
    Http4sServer[IO](endpoints, RapierHttp4sServer.options(config)).start()

object RapierHttp4sServer:
  def options(config: ServerConfig): Http4sServerOptions = SuiteOptions(Http4sServerOptions(), config)
