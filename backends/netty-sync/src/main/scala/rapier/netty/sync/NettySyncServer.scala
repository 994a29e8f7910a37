package rapier.netty.sync

import rapier.netty.{NettyServer, NettyServerOptions}
import rapier.server.spi.{Runner, VirtualThreadRunner}
import rapier.server.{Identity, ServerBuilder, ServerEndpoint}

/**
 * A Rapier server on Netty for direct-style endpoints: logic that returns its value ([[rapier.server.Identity]]) and
 * may block, run one virtual thread per request. Needs JDK 21 or newer to start; on an older JDK, `start()` fails
 * saying so.
 *
 * {{{
 * val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess[Identity](_ => "Hello")
 * NettySyncServer().withPort(8080).addEndpoint(hello).start()
 * }}}
 */
final case class NettySyncServer(
    endpoints: List[ServerEndpoint[Identity]] = Nil,
    options: NettyServerOptions = NettyServerOptions.default
) extends ServerBuilder[Identity, NettyServerOptions, NettySyncServer]:
  type Started = NettyServer.Binding

  protected def copyWith(endpoints: List[ServerEndpoint[Identity]], options: NettyServerOptions): NettySyncServer =
    NettySyncServer(endpoints, options)

  /**
   * @throws UnsupportedOperationException
   *   on a JDK without virtual threads
   */
  def start(): NettyServer.Binding =
    val threads = VirtualThreadRunner.create()
    given Runner[Identity] = threads
    try NettyServer.bind(endpoints, options).onStop(() => threads.shutdown())
    catch
      case e: Throwable =>
        threads.shutdown()
        throw e
