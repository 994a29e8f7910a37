package rapier.perf.tapir

import io.netty.channel.epoll.{Epoll, EpollEventLoopGroup}
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.handler.ssl.{ApplicationProtocolConfig, ApplicationProtocolNames, OpenSsl, SslContext}
import io.netty.handler.ssl.{SslContextBuilder, SslProvider}
import rapier.perf.common.{Order, PerfApi, PerfServer, ServerConfig, TlsFiles}
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
class TapirNettyServer extends PerfServer:
  protected given ExecutionContext = ExecutionContext.global
  private var binding: NettyFutureServerBinding | Null = null
  private var routes = 0

  /** Tapir's options for `config`: its defaults, with the server log off unless the variant keeps it. */
  protected def options(config: ServerConfig): NettyFutureServerOptions =
    if config.requestLog then NettyFutureServerOptions.default
    else NettyFutureServerOptions.customiseInterceptors.serverLog(None).options

  def start(config: ServerConfig): Int =
    val server = NettyFutureServer(options(config), TapirNettyServer.nettyConfig(config))
      .addEndpoints((0 until config.routes).toList.flatMap(TapirNettyServer.endpoints))
    routes = server.routes.size
    val started = Await.result(server.start(), 30.seconds)
    binding = started
    started.port

  /** Each `addEndpoints` call is one route, which Tapir's Netty server tries in turn. */
  def routeSets: Int = routes

  def stop(): Unit = if binding != null then Await.result(binding.nn.stop(), 30.seconds)

object TapirNettyServer:
  def endpoints(n: Int): List[ServerEndpoint[Any, Future]] = TapirEndpoints(n, pure)

  private val pure: [A] => A => Future[A] = [A] => (a: A) => Future.successful(a)

  /**
   * Netty's settings for every Tapir server of the suite on Netty: Tapir's defaults, bound to every address, with the
   * suite's number of event loop threads.
   */
  def nettyConfig(config: ServerConfig): NettyConfig =
    val group = if Epoll.isAvailable then EpollEventLoopGroup(config.threads) else NioEventLoopGroup(config.threads)
    val plain = NettyConfig.default.host("0.0.0.0").port(config.port).eventLoopGroup(group)
    config.tls.fold(plain)(files => plain.sslContext(sslContext(files)))

  /**
   * The Netty `SslContext` Tapir's documentation has a user build for `NettyConfig.sslContext`, built as the twin's:
   * OpenSSL's provider when tcnative loads, TLS 1.3 and 1.2, ALPN offering HTTP/1.1.
   */
  private def sslContext(files: TlsFiles): SslContext =
    SslContextBuilder
      .forServer(files.certificate.toFile, files.key.toFile)
      .sslProvider(if OpenSsl.isAvailable then SslProvider.OPENSSL else SslProvider.JDK)
      .protocols(TlsFiles.Protocols*)
      .applicationProtocolConfig(
        ApplicationProtocolConfig(
          ApplicationProtocolConfig.Protocol.ALPN,
          ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
          ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
          ApplicationProtocolNames.HTTP_1_1
        )
      )
      .build()

/**
 * The suite's endpoints in Tapir, for logic in any effect `F`, each answering at once through `pure` (as a Tapir user
 * writes `Future.successful`, `IO.pure` or a plain value): one list per route number, with the suite's body limit on
 * every endpoint that reads a body.
 */
object TapirEndpoints:
  def apply[F[_]](n: Int, pure: [A] => A => F[A]): List[ServerEndpoint[Any, F]] = List(
    endpoint.get.in(s"path$n" / path[Int]("id")).out(stringBody).serverLogicSuccess[F](id => pure(PerfApi.ok(id))),
    endpoint.post
      .in(s"path$n")
      .in(stringBody)
      .out(stringBody)
      .maxRequestBodyLength(PerfApi.MaxBodySize)
      .serverLogicSuccess[F](s => pure(PerfApi.ok(s.length))),
    endpoint.post
      .in(s"pathBytes$n")
      .in(byteArrayBody)
      .out(stringBody)
      .maxRequestBodyLength(PerfApi.MaxBodySize)
      .serverLogicSuccess[F](b => pure(PerfApi.ok(b.length))),
    endpoint.post
      .in(s"pathJson$n")
      .in(jsonBody[Order])
      .out(jsonBody[Order])
      .maxRequestBodyLength(PerfApi.MaxBodySize)
      .serverLogicSuccess[F](o => pure(o))
  )
