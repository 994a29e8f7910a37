package rapier.perf.servers

import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.netty.{NettyServer, NettyServerOptions}
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig}
import rapier.perf.vanilla.PayloadCodecs.given
import rapier.server.*
import rapier.server.files.staticFiles

import scala.concurrent.{ExecutionContext, Future}

/**
 * The suite's endpoints on Rapier's Netty server, written as a user would, with the server's defaults except for the
 * request log, which the Rapier variant turns off and the RapierLog variant keeps (at its default level, DEBUG, with
 * a logger that writes nothing).
 */
class RapierNettyServer extends PerfServer:
  private var binding: NettyServer.Binding | Null = null

  /** What an observed variant adds to the options (see [[Observed]]). */
  protected def instrument(options: NettyServerOptions): NettyServerOptions = options

  /** How the JSON routes read and write an order: jsoniter-scala here, circe in [[RapierNettyCirceServer]]. */
  protected def json: EndpointIO.Body[Array[Byte], Order] = RapierNettyServer.orderJson

  def start(config: ServerConfig): Int =
    val options = instrument(RapierNettyServer.options(config))
    val endpoints = (0 until config.routes).toList.flatMap(RapierNettyServer.endpoints(_, json)) ++
      StudyLogic.endpoints :+
      RapierNettyServer.statics
    val started = NettyServer(endpoints, options).start()
    binding = started
    started.port

  /** One server compiles every endpoint into one routing trie. */
  def routeSets: Int = 1

  def stop(): Unit = if binding != null then binding.nn.stop()

object RapierNettyServer:
  /** The options every Rapier server on Netty in the suite runs with, whatever its effect. */
  def options(config: ServerConfig): NettyServerOptions =
    SuiteOptions(NettyServerOptions(), config).withEventLoopThreads(config.threads)

  /** `GET /static/{file}`: the suite's static files, by Rapier's file service with its defaults. */
  def statics: ServerEndpoint[Future] = staticFiles[Future]("static", PerfApi.staticDirectory)

  /** JSON as a user writes it: `jsonBody`, with jsoniter-scala reading and writing the bytes directly. */
  private val orderJson = jsonBody[Order]

  def endpoints(n: Int, orderJson: EndpointIO.Body[Array[Byte], Order] = orderJson): List[ServerEndpoint[Future]] =
    List(
      endpoint.get.in(s"path$n" / path[Int]("id")).out(stringBody).serverLogicSuccess(id =>
        Future.successful(PerfApi.ok(id))
      ),
      endpoint.post.in(s"path$n").in(stringBody).out(stringBody).serverLogicSuccess(s =>
        Future.successful(PerfApi.ok(s.length))
      ),
      endpoint.post
        .in(s"pathBytes$n")
        .in(byteArrayBody)
        .out(stringBody)
        .serverLogicSuccess(b => Future.successful(PerfApi.ok(b.length))),
      endpoint.post.in(s"pathJson$n").in(orderJson).out(orderJson).serverLogicSuccess(Future.successful),
      endpoint.get.in(s"pathJson$n").out(orderJson).serverLogicSuccess(_ => Future.successful(PerfApi.order)),
      endpoint.post.in(s"pathStream$n").in(chunksBody).out(stringBody).serverLogicSuccess(count),
      endpoint.get.in(s"pathFile$n").out(fileBody).serverLogicSuccess(_ => Future.successful(PerfApi.file))
    )

  /**
   * Counts a streamed body's bytes as its chunks arrive, with no copy of them and nothing allocated per chunk (a
   * `fold(0L)` would box each count): Rapier's lightest reader.
   */
  private def count(body: BodyChunks): Future[String] =
    var n = 0L
    body.foreach(chunk => n += chunk.remaining).map(_ => PerfApi.ok(n))(using ExecutionContext.parasitic)
