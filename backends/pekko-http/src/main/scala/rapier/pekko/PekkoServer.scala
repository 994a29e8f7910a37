package rapier.pekko

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.Tcp
import org.slf4j.LoggerFactory
import rapier.pekko.internal.Connections
import rapier.server.spi.{FramingGuard, RefusalMarker}
import rapier.server.{ServerBuilder, ServerEndpoint}

import java.net.InetSocketAddress
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

/**
 * A standalone Rapier server on pekko-http, for endpoints whose logic returns `Future`s: the endpoints as a
 * [[PekkoServerInterpreter]]'s `handler` (every request answered, rejections included), behind pekko-http's server
 * layer, each connection's bytes read through Rapier's framing guard first (`spi.FramingGuard`), so that what
 * pekko-http's parser would read leniently is refused as on Netty, and heads are timed (408). It runs on the given `ActorSystem`, or on one of its own (terminated with the server) when none is
 * given.
 *
 * {{{
 * val binding = PekkoServer().withPort(8080).addEndpoint(hello).start()
 * // ...
 * binding.stop()
 * }}}
 */
final case class PekkoServer(
    endpoints: List[ServerEndpoint[Future]] = Nil,
    options: PekkoServerOptions = PekkoServerOptions.default,
    system: Option[ActorSystem] = None
) extends ServerBuilder[Future, PekkoServerOptions, PekkoServer]:
  type Started = PekkoServer.Binding

  protected def copyWith(endpoints: List[ServerEndpoint[Future]], options: PekkoServerOptions): PekkoServer =
    copy(endpoints = endpoints, options = options)

  /** Runs on `s` rather than on an actor system of the server's own. */
  def withSystem(s: ActorSystem): PekkoServer = copy(system = Some(s))

  def start(): PekkoServer.Binding =
    // Compiled before anything starts: an endpoint that can't be served fails here, cleanly.
    val marker = RefusalMarker.random()
    val interpreter = PekkoServerInterpreter(endpoints, options, marker)
    // Loaded before anything starts, as the endpoints are: a key that can't be read fails here
    val tls = options.tls.map(t => (t.sslContext(), t))
    val owned = system.isEmpty
    val s = system.getOrElse(ActorSystem("rapier-pekko", PekkoServer.systemConfig))
    if !owned then PekkoServer.readSizeWarning(s.name, s.settings.config).foreach(PekkoServer.log.warn)
    try
      given ActorSystem = s
      given Materializer = Materializer.matFromSystem(using s)
      // pekko-http reads values as UTF-8: obs-text goes to it so, to read as the Latin-1 the other servers read.
      val guard = () => FramingGuard(options.maxInitialLineLength, options.maxHeaderSize, marker, obsTextAsUtf8 = true)
      val settings = options.serverSettings(s.settings.config)
      val connections =
        Connections(
          interpreter.handler,
          interpreter.busy,
          settings,
          guard,
          options.headerReadTimeout,
          tls,
          options.http2
        )
      val binding = Await.result(connections.bind(options.host, options.port), 30.seconds)
      val scheme = if tls.isDefined then "https" else "http"
      PekkoServer.log.info(
        s"Serving ${endpoints.size} endpoint(s) on $scheme://${options.host}:${binding.localAddress.getPort} (pekko-http)"
      )
      PekkoServer.Binding(binding, connections, s, owned, interpreter, options)
    catch
      case e: Throwable =>
        if owned then Await.ready(s.terminate(), 10.seconds)
        throw e

object PekkoServer:
  private val log = LoggerFactory.getLogger(classOf[PekkoServer])

  /**
   * The server's own actor system's configuration: the application's, with each read of a connection handed to
   * pekko-http's parser in pieces of at most 4 KiB. The parser recurses once per request a piece holds whole, and a
   * client pipelining thousands of small requests in one write (2,000 GETs, 66 KB) overflowed its stack, which stops
   * the JVM (600 in a piece of 16 KiB did too): a piece of 4 KiB holds 160 at most.
   */
  private[pekko] def systemConfig: com.typesafe.config.Config =
    com.typesafe.config.ConfigFactory
      .parseString("pekko.io.tcp.max-received-message-size = 4k")
      .withFallback(com.typesafe.config.ConfigFactory.load())
  private val FlushMillis = 200L
  private val ReadSizeKey = "pekko.io.tcp.max-received-message-size"

  /** What to warn of at start when a given system hands the parser more than 4 KiB at a time (see `systemConfig`). */
  private[pekko] def readSizeWarning(system: String, config: com.typesafe.config.Config): Option[String] =
    val size = config.getString(ReadSizeKey)
    val bytes = if size == "unlimited" then Long.MaxValue else config.getBytes(ReadSizeKey).longValue
    Option.when(bytes > 4096)(
      s"The actor system $system hands pekko-http's parser up to $size bytes at a time: a client pipelining a few " +
        s"thousand small requests in one write can overflow the parser's stack, which stops the JVM. Set " +
        s"$ReadSizeKey = 4k in its configuration."
    )

  /** A running pekko-http server. */
  final class Binding private[PekkoServer] (
      binding: Tcp.ServerBinding,
      connections: Connections,
      system: ActorSystem,
      owned: Boolean,
      interpreter: PekkoServerInterpreter,
      options: PekkoServerOptions
  ) extends rapier.server.Binding:
    val address: InetSocketAddress = binding.localAddress

    def bodyBytesHeld: Long = interpreter.bodyBytesHeld

    /**
     * Stops accepting, closes idle connections, lets requests in progress finish within the shutdown timeout (each
     * answered with `Connection: close`, a request arriving meanwhile with 503), then closes the rest.
     */
    protected def shutdown(): Unit =
      val timeout = options.shutdownTimeout
      // The WebSockets are closed first, with a close of their own
      Await.ready(interpreter.closeWebSockets(), timeout)
      try Await.ready(connections.stop(() => binding.unbind(), timeout), timeout + 5.seconds)
      finally
        if owned then
          // The last responses are handed to the connections' TCP actors as they close: they get a moment to reach
          // their sockets before the actors stop with the system (which resets them). Idle ones had none to send.
          if connections.answeringAtStop then Thread.sleep(PekkoServer.FlushMillis)
          Await.ready(system.terminate(), 10.seconds)
      ()
