package rapier.netty

import io.netty.bootstrap.ServerBootstrap
import io.netty.channel.{AdaptiveRecvByteBufAllocator, Channel, ChannelOption, MultiThreadIoEventLoopGroup}
import io.netty.util.concurrent.DefaultThreadFactory
import org.slf4j.LoggerFactory
import rapier.netty.internal.{Connections, Transports}
import rapier.server.spi.{Admission, Runner}
import rapier.server.{Monad, ServerBuilder, ServerEndpoint}

import java.net.InetSocketAddress
import java.util.concurrent.TimeUnit
import scala.concurrent.Future

/**
 * A Rapier server on Netty, for endpoints whose logic returns `Future`s.
 *
 * {{{
 * val binding = NettyServer().withPort(8080).addEndpoints(List(hello)).start()
 * // ...
 * binding.stop()
 * }}}
 */
final case class NettyServer(
    endpoints: List[ServerEndpoint[Future]] = Nil,
    options: NettyServerOptions = NettyServerOptions.default
) extends ServerBuilder[Future, NettyServerOptions, NettyServer]:
  protected def copyWith(endpoints: List[ServerEndpoint[Future]], options: NettyServerOptions): NettyServer =
    NettyServer(endpoints, options)

  type Started = NettyServer.Binding

  def start(): NettyServer.Binding = NettyServer.bind(endpoints, options)

object NettyServer:
  private val log = LoggerFactory.getLogger(classOf[NettyServer])

  /**
   * How much each read from a connection may take: Netty's adaptive guess, which starts at 2 KiB and grows while reads
   * fill it, allowed to grow to [[NettyServerInterpreter.MaxChunk]] rather than Netty's 64 KiB. A large body then
   * arrives in fewer, larger reads (as few as a quarter), and each read costs objects whatever its size (the buffer, a
   * streamed body's view of it); small requests never grow the guess. Shared: each channel takes a handle of its own.
   */
  private val reads = AdaptiveRecvByteBufAllocator(64, 2048, NettyServerInterpreter.MaxChunk)

  /**
   * Compiles `endpoints`, binds, and returns once the server accepts connections: how every flavour of the Netty server
   * starts, the endpoints' logic in `F` run by `runner` (`Future` here, an effect module's for its effect).
   */
  def bind[F[_]](endpoints: List[ServerEndpoint[F]], options: NettyServerOptions)(using
      Monad[F],
      Runner[F]
  ): Binding =
    val connections = Connections(options.maxConnections, Admission(options.backend))
    // Compiled before any thread starts: an endpoint that can't be served fails here, cleanly.
    val initializer = NettyServerInterpreter(options).initializer(endpoints, connections)
    val transport = Transports.choose(options.transport)
    val threads =
      if options.eventLoopThreads > 0 then options.eventLoopThreads else Runtime.getRuntime.availableProcessors
    val boss = MultiThreadIoEventLoopGroup(1, DefaultThreadFactory("rapier-accept"), transport.factory())
    val workers = MultiThreadIoEventLoopGroup(threads, DefaultThreadFactory("rapier-io"), transport.factory())
    try
      val channel = ServerBootstrap()
        .group(boss, workers)
        .channel(transport.serverChannel)
        .option(ChannelOption.SO_BACKLOG, Integer.valueOf(1024))
        .option(ChannelOption.SO_REUSEADDR, java.lang.Boolean.TRUE)
        .childOption(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
        .childOption(ChannelOption.RECVBUF_ALLOCATOR, reads)
        .childHandler(initializer)
        .bind(options.host, options.port)
        .sync()
        .channel()
      val address = channel.localAddress.asInstanceOf[InetSocketAddress]
      val scheme = if options.tls.isDefined then "https" else "http"
      val tlsNote = if options.tls.isDefined then s", TLS by ${rapier.netty.internal.NettyTls.provider}" else ""
      log.info(
        s"Serving ${endpoints.size} endpoint(s) on $scheme://${address.getHostString}:${address.getPort} " +
          s"(${transport.name}, $threads thread(s)${tlsNote})"
      )
      Binding(channel, address, boss, workers, connections, options)
    catch
      case e: Throwable =>
        boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        throw e

  /** A running Netty server. */
  final class Binding private[NettyServer] (
      channel: Channel,
      val address: InetSocketAddress,
      boss: MultiThreadIoEventLoopGroup,
      workers: MultiThreadIoEventLoopGroup,
      connections: Connections,
      options: NettyServerOptions
  ) extends rapier.server.Binding:
    def bodyBytesHeld: Long = connections.bodies.held

    protected def shutdown(): Unit =
      val deadline = System.nanoTime() + options.shutdownTimeout.toNanos
      channel.close().syncUninterruptibly()
      connections.drainAll()
      while !connections.group.isEmpty && System.nanoTime() < deadline do Thread.sleep(5)
      if !connections.group.isEmpty then
        log.warn(s"Closing ${connections.group.size} connection(s) still busy after ${options.shutdownTimeout}")
        connections.group.close().awaitUninterruptibly(1, TimeUnit.SECONDS)
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS)
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS)
      boss.terminationFuture.awaitUninterruptibly(5, TimeUnit.SECONDS)
      workers.terminationFuture.awaitUninterruptibly(5, TimeUnit.SECONDS)
