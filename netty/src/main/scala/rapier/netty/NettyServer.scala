package rapier.netty

import io.netty.bootstrap.ServerBootstrap
import io.netty.channel.{Channel, ChannelOption, MultiThreadIoEventLoopGroup}
import io.netty.util.concurrent.DefaultThreadFactory
import org.slf4j.LoggerFactory
import rapier.netty.internal.{Connections, Transports}
import rapier.server.ServerEndpoint

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
):
  def addEndpoint(e: ServerEndpoint[Future]): NettyServer = copy(endpoints = endpoints :+ e)
  def addEndpoints(es: List[ServerEndpoint[Future]]): NettyServer = copy(endpoints = endpoints ++ es)
  def withOptions(o: NettyServerOptions): NettyServer = copy(options = o)
  def modifyOptions(f: NettyServerOptions => NettyServerOptions): NettyServer = copy(options = f(options))
  def withHost(host: String): NettyServer = modifyOptions(_.withHost(host))
  def withPort(port: Int): NettyServer = modifyOptions(_.withPort(port))

  /**
   * Compiles the endpoints, binds, and returns once the server accepts connections.
   * @throws IllegalArgumentException
   *   if an endpoint can't be served (see the message)
   * @throws java.net.BindException
   *   if the address can't be bound
   */
  def start(): NettyServer.Binding =
    val connections = Connections(options.maxConnections)
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
        .childHandler(initializer)
        .bind(options.host, options.port)
        .sync()
        .channel()
      val address = channel.localAddress.asInstanceOf[InetSocketAddress]
      NettyServer.log.info(
        s"Serving ${endpoints.size} endpoint(s) on ${address.getHostString}:${address.getPort} (${transport.name}, $threads thread(s))"
      )
      NettyServer.Binding(channel, address, boss, workers, connections, options)
    catch
      case e: Throwable =>
        boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        throw e

object NettyServer:
  private val log = LoggerFactory.getLogger(classOf[NettyServer])

  /** A running server. */
  final class Binding private[NettyServer] (
      channel: Channel,
      val address: InetSocketAddress,
      boss: MultiThreadIoEventLoopGroup,
      workers: MultiThreadIoEventLoopGroup,
      connections: Connections,
      options: NettyServerOptions
  ):
    /** The port the server listens on: the one asked for, or the one picked for port 0. */
    def port: Int = address.getPort
    def hostName: String = address.getHostString

    /**
     * Bytes of request bodies the server holds now, being read before their requests reach the endpoints: at most
     * `maxBodySize` per connection receiving a body. A gauge for monitoring memory under uploads.
     */
    def bodyBytesHeld: Long = connections.bodyBytes.sum

    /**
     * Stops gracefully and returns when done: stops accepting connections, lets requests in progress finish (their
     * responses say `Connection: close`), closes idle connections at once, and after `shutdownTimeout` closes
     * whatever is left. Calling it again does nothing.
     */
    def stop(): Unit = synchronized {
      if !stopped then
        stopped = true
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
    }

    /** Blocks until the server has been stopped (from another thread, or a shutdown hook). */
    def awaitStop(): Unit = workers.terminationFuture.awaitUninterruptibly()

    /** Stops the server when the JVM shuts down (Ctrl-C). */
    def stopOnShutdown(): Binding =
      Runtime.getRuntime.addShutdownHook(Thread(() => stop(), "rapier-shutdown"))
      this

    private var stopped = false
