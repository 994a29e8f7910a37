package rapier.perf.servers

import rapier.*
import rapier.json.jsoniter.jsonBody
import io.vertx.core.Vertx
import rapier.netty.zioeffect.NettyZioServer
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig, Ticks}
import rapier.perf.vanilla.PayloadCodecs.given
import rapier.server.*
import rapier.vertx.zioeffect.VertxZioServer
import rapier.zioeffect.{zioSseBody, zioStreamBody, zioWebSocketBody}
import zio.stream.ZStream
import zio.{Exit, Runtime, Scope, Task, UIO, Unsafe, ZIO}

import scala.concurrent.duration.Duration

/**
 * The suite's endpoints with ZIO logic, as a ZIO user writes them: `ZIO.succeed` for what answers at once, a streamed
 * body as a `ZStream` whose chunks are counted, the server started in a `Scope` on ZIO's default runtime.
 */
object RapierZioServer:
  private val orderJson = jsonBody[Order]

  def endpoints(n: Int): List[ServerEndpoint[Task]] = List(
    endpoint.get.in(s"path$n" / path[Int]("id")).out(stringBody).serverLogicSuccess[Task](id =>
      ZIO.succeed(PerfApi.ok(id))
    ),
    endpoint.post.in(s"path$n").in(stringBody).out(stringBody).serverLogicSuccess[Task](s =>
      ZIO.succeed(PerfApi.ok(s.length))
    ),
    endpoint.post
      .in(s"pathBytes$n")
      .in(byteArrayBody)
      .out(stringBody)
      .serverLogicSuccess[Task](b => ZIO.succeed(PerfApi.ok(b.length))),
    endpoint.post.in(s"pathJson$n").in(orderJson).out(orderJson).serverLogicSuccess[Task](ZIO.succeed(_)),
    endpoint.post.in(s"pathStream$n").in(zioStreamBody).out(stringBody).serverLogicSuccess[Task] { body =>
      body.chunks.runFold(0L)(_ + _.size).map(PerfApi.ok)
    },
    endpoint.get.in(s"pathFile$n").out(fileBody).serverLogicSuccess[Task](_ => ZIO.succeed(PerfApi.file))
  )

  /** The time at the next tick of [[Ticks]], taken on the clock's thread as the vanilla twins take it. */
  private val nextStamp: UIO[String] = ZIO.async(answer => Ticks.onNext(stamp => answer(Exit.succeed(stamp))))

  /**
   * The WebSocket study's two endpoints as ZIO pipes: each message written back, or answered on the next tick with the
   * time then; the SSE study's events beside them, with no keep-alive, as the twins have none.
   */
  val webSockets: List[ServerEndpoint[Task]] = List(
    endpoint.get.in("ws" / "echo").out(zioWebSocketBody[String, String]).serverLogicSuccess[Task] { _ =>
      ZIO.succeed(in => in)
    },
    endpoint.get.in("ws" / "ts").out(zioWebSocketBody[String, String]).serverLogicSuccess[Task] { _ =>
      ZIO.succeed(_.mapZIO(_ => nextStamp))
    },
    endpoint.get.in("sse" / "ts").out(zioSseBody(Duration.Inf)).serverLogicSuccess[Task] { _ =>
      ZIO.succeed(ZStream.repeatZIO(nextStamp).map(ServerSentEvent.data))
    }
  )

/** A ZIO server of the suite, started in a `Scope` of its own on ZIO's default runtime and stopped by closing it. */
abstract class RapierZioRunning extends PerfServer:
  private var scope: Scope.Closeable | Null = null

  private def run[A](effect: Task[A]): A = Unsafe.unsafely(Runtime.default.unsafe.run(effect).getOrThrow())

  /** The server for `endpoints`, as its backend starts it. */
  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[Task]]): ZIO[Scope, Throwable, Binding]

  def start(config: ServerConfig): Int =
    val endpoints = (0 until config.routes).toList.flatMap(RapierZioServer.endpoints) ++ RapierZioServer.webSockets
    val s = run(Scope.make)
    scope = s
    run(s.extend(server(config, endpoints))).port

  /** One server compiles every endpoint into one routing trie. */
  def routeSets: Int = 1

  def stop(): Unit = if scope != null then run(scope.nn.close(Exit.unit))

/** [[RapierZioServer]]'s endpoints on Rapier's Netty server for ZIO. */
final class RapierNettyZioServer extends RapierZioRunning:
  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[Task]]): ZIO[Scope, Throwable, Binding] =
    NettyZioServer(endpoints, RapierNettyServer.options(config)).start()

/** [[RapierZioServer]]'s endpoints on Rapier's Vert.x server for ZIO, on a Vert.x with the suite's event loops. */
final class RapierVertxZioServer extends RapierZioRunning:
  private var vertx: Vertx | Null = null

  protected def server(config: ServerConfig, endpoints: List[ServerEndpoint[Task]]): ZIO[Scope, Throwable, Binding] =
    val v = RapierVertxServer.newVertx(config)
    vertx = v
    VertxZioServer(endpoints, RapierVertxServer.options(config), Some(v)).start()

  override def stop(): Unit =
    super.stop()
    RapierVertxServer.close(vertx)
