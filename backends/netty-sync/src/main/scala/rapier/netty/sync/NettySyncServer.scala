package rapier.netty.sync

import rapier.netty.{NettyServer, NettyServerOptions}
import rapier.server.spi.{Runner, VirtualThreadRunner}
import rapier.server.{Identity, ServerBuilder, ServerEndpoint, VirtualThreadStart}

/**
 * A Rapier server on Netty for direct-style endpoints: logic that returns its value ([[rapier.server.Identity]]) and
 * may block, run one virtual thread per request, first run where `threadStart` says (the JDK's carriers by default;
 * see [[rapier.server.VirtualThreadStart.OnLoop]] for running it on the connection's event loop until it first waits). Needs JDK 21
 * or newer to start; on an older JDK, `start()` fails saying so.
 *
 * {{{
 * val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess[Identity](_ => "Hello")
 * NettySyncServer().withPort(8080).addEndpoint(hello).start()
 * }}}
 */
final case class NettySyncServer(
    endpoints: List[ServerEndpoint[Identity]] = Nil,
    options: NettyServerOptions = NettyServerOptions.default,
    threadStart: VirtualThreadStart = VirtualThreadStart.OnCarrier
) extends ServerBuilder[Identity, NettyServerOptions, NettySyncServer]:
  type Started = NettyServer.Binding

  protected def copyWith(endpoints: List[ServerEndpoint[Identity]], options: NettyServerOptions): NettySyncServer =
    copy(endpoints = endpoints, options = options)

  /** Where each request's virtual thread first runs. */
  def withThreadStart(start: VirtualThreadStart): NettySyncServer = copy(threadStart = start)

  /**
   * @throws UnsupportedOperationException
   *   on a JDK without virtual threads, or for [[rapier.server.VirtualThreadStart.OnLoop]] on a JVM that doesn't open `java.lang`
   */
  def start(): NettyServer.Binding =
    val threads = VirtualThreadRunner.create(threadStart)
    given Runner[Identity] = threads
    try NettyServer.bind(endpoints, options).onStop(() => threads.shutdown())
    catch
      case e: Throwable =>
        threads.shutdown()
        throw e
