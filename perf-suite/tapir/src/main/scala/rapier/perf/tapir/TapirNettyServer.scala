package rapier.perf.tapir

import io.netty.channel.epoll.{Epoll, EpollEventLoopGroup}
import io.netty.channel.nio.NioEventLoopGroup
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig}
import rapier.perf.vanilla.PayloadCodecs.given
import sttp.tapir.*
import sttp.tapir.generic.auto.*
import sttp.tapir.json.jsoniter.*
import sttp.tapir.server.ServerEndpoint
import sttp.tapir.server.model.EndpointExtensions.*
import sttp.tapir.server.netty.{NettyConfig, NettyFutureServer, NettyFutureServerBinding, NettyFutureServerOptions}

import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/**
 * The suite's endpoints on Tapir's Netty Future server, set up as Tapir's documentation and its own performance
 * harness (perf-tests, `NettyFuture.scala`) set it up: every endpoint handed to the server in one `addEndpoints`
 * call, so that Tapir builds one route over all of them and its path pre-matching applies. Tapir's defaults
 * otherwise, except for what every server of the suite shares: the number of event loop threads and the body limit
 * ([[PerfApi.MaxBodySize]], Tapir's `maxRequestBodyLength` on each endpoint that reads one).
 * The Tapir variant turns the server log off; TapirLog keeps Tapir's default server log, whose logger (through
 * slf4j-nop) writes nothing.
 */
final class TapirNettyServer extends PerfServer:
  private given ExecutionContext = ExecutionContext.global
  private var binding: NettyFutureServerBinding | Null = null
  private var routes = 0

  def start(config: ServerConfig): Int =
    val options =
      if config.requestLog then NettyFutureServerOptions.default
      else NettyFutureServerOptions.customiseInterceptors.serverLog(None).options
    val group = if Epoll.isAvailable then EpollEventLoopGroup(config.threads) else NioEventLoopGroup(config.threads)
    val nettyConfig = NettyConfig.default
      .host("0.0.0.0")
      .port(config.port)
      .eventLoopGroup(group)
    val server = NettyFutureServer(options, nettyConfig)
      .addEndpoints((0 until config.routes).toList.flatMap(TapirNettyServer.endpoints))
    routes = server.routes.size
    val started = Await.result(server.start(), 30.seconds)
    binding = started
    started.port

  /** Each `addEndpoints` call is one route, which Tapir's Netty server tries in turn. */
  def routeSets: Int = routes

  def stop(): Unit = if binding != null then Await.result(binding.nn.stop(), 30.seconds)

object TapirNettyServer:
  def endpoints(n: Int): List[ServerEndpoint[Any, Future]] = List(
    endpoint.get.in(s"path$n" / path[Int]("id")).out(stringBody).serverLogicSuccess(id =>
      Future.successful(PerfApi.ok(id))
    ),
    endpoint.post
      .in(s"path$n")
      .in(stringBody)
      .out(stringBody)
      .maxRequestBodyLength(PerfApi.MaxBodySize)
      .serverLogicSuccess(s => Future.successful(PerfApi.ok(s.length))),
    endpoint.post
      .in(s"pathBytes$n")
      .in(byteArrayBody)
      .out(stringBody)
      .maxRequestBodyLength(PerfApi.MaxBodySize)
      .serverLogicSuccess(b => Future.successful(PerfApi.ok(b.length))),
    endpoint.post
      .in(s"pathJson$n")
      .in(jsonBody[Order])
      .out(jsonBody[Order])
      .maxRequestBodyLength(PerfApi.MaxBodySize)
      .serverLogicSuccess(Future.successful)
  )
