package rapier.perf.tapir

import io.netty.channel.epoll.{Epoll, EpollEventLoopGroup}
import io.netty.channel.nio.NioEventLoopGroup
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig}
import rapier.perf.vanilla.PayloadCodecs.given
import sttp.tapir.*
import sttp.tapir.generic.auto.*
import sttp.tapir.json.jsoniter.*
import sttp.tapir.server.ServerEndpoint
import sttp.tapir.server.netty.{NettyConfig, NettyFutureServer, NettyFutureServerBinding, NettyFutureServerOptions}

import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/**
 * The suite's endpoints on Tapir's Netty Future server, written as Tapir's documentation shows, with its defaults
 * except for what every server of the suite shares: the number of event loop threads. (Tapir 1.11 sets body limits
 * per endpoint; by default there is none, which the 5 MB scenarios don't need.)
 * The Tapir variant turns the server log off; TapirLog keeps Tapir's default server log, whose logger (through
 * slf4j-nop) writes nothing.
 */
final class TapirNettyServer extends PerfServer:
  private given ExecutionContext = ExecutionContext.global
  private var binding: NettyFutureServerBinding | Null = null

  def start(config: ServerConfig): Int =
    val options =
      if config.requestLog then NettyFutureServerOptions.default
      else NettyFutureServerOptions.customiseInterceptors.serverLog(None).options
    val group = if Epoll.isAvailable then EpollEventLoopGroup(config.threads) else NioEventLoopGroup(config.threads)
    val nettyConfig = NettyConfig.default
      .host("0.0.0.0")
      .port(config.port)
      .eventLoopGroup(group)
    val server = (0 until config.routes).foldLeft(NettyFutureServer(options, nettyConfig)) { (s, n) =>
      s.addEndpoints(TapirNettyServer.endpoints(n))
    }
    val started = Await.result(server.start(), 30.seconds)
    binding = started
    started.port

  def stop(): Unit = if binding != null then Await.result(binding.nn.stop(), 30.seconds)

object TapirNettyServer:
  def endpoints(n: Int): List[ServerEndpoint[Any, Future]] = List(
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
    endpoint.post.in(s"pathJson$n").in(jsonBody[Order]).out(jsonBody[Order]).serverLogicSuccess(Future.successful)
  )
