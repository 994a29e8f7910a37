package rapier.pekko

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.headers.Connection
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse}
import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.Flow
import org.slf4j.LoggerFactory
import rapier.server.{ServerBuilder, ServerEndpoint}

import java.net.InetSocketAddress
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.util.Success

/**
 * A standalone Rapier server on pekko-http, for endpoints whose logic returns `Future`s: the endpoints as a
 * [[PekkoServerInterpreter]]'s `handler` (every request answered, rejections included), bound with pekko-http's
 * `newServerAt`. It runs on the given `ActorSystem`, or on one of its own (terminated with the server) when none is
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
    val interpreter = PekkoServerInterpreter(endpoints, options)
    val owned = system.isEmpty
    val s = system.getOrElse(ActorSystem("rapier-pekko", PekkoServer.systemConfig))
    try
      given Materializer = Materializer.matFromSystem(using s)
      val bound = Http()(using s)
        .newServerAt(options.host, options.port)
        .withSettings(options.serverSettings(s.settings.config))
        .bindFlow(PekkoServer.perConnection(interpreter.handler))
      val binding = Await.result(bound, 30.seconds)
      PekkoServer.log.info(
        s"Serving ${endpoints.size} endpoint(s) on ${options.host}:${binding.localAddress.getPort} (pekko-http)"
      )
      PekkoServer.Binding(binding, s, owned, interpreter, options)
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

  /**
   * Each connection's requests through `handler`, one at a time (pekko-http's pipelining limit, 1 by default), until a
   * response closes the connection (a refusal): the requests after it, which pekko-http has already read, never reach
   * the logic. With `bind(handler)` pekko-http would hand the next one to the handler before it closes the connection.
   */
  private def perConnection(handler: HttpRequest => Future[HttpResponse]): Flow[HttpRequest, HttpResponse, ?] =
    Flow.fromMaterializer { (_, _) =>
      val closing = AtomicBoolean()
      def seen(response: HttpResponse): HttpResponse =
        if response.header[Connection].exists(_.hasClose) then closing.set(true)
        response
      Flow[HttpRequest].takeWhile(_ => !closing.get).mapAsync(1) { request =>
        val answered = handler(request)
        answered.value match
          case Some(Success(response)) =>
            seen(response)
            answered
          case _ => answered.map(seen)(using ExecutionContext.parasitic)
      }
    }

  /** A running pekko-http server. */
  final class Binding private[PekkoServer] (
      binding: Http.ServerBinding,
      system: ActorSystem,
      owned: Boolean,
      interpreter: PekkoServerInterpreter,
      options: PekkoServerOptions
  ) extends rapier.server.Binding:
    val address: InetSocketAddress = binding.localAddress

    def bodyBytesHeld: Long = interpreter.bodyBytesHeld

    /**
     * pekko-http's own termination: stop accepting, close idle connections, let requests in progress finish within
     * the shutdown timeout (pekko-http answers those still running then with 503), close the rest.
     */
    protected def shutdown(): Unit =
      val timeout = options.shutdownTimeout
      // No new connection first; then the WebSockets are closed with a close of their own, which pekko-http's
      // termination would not send
      Await.ready(binding.unbind(), timeout)
      Await.ready(interpreter.closeWebSockets(), timeout)
      try Await.ready(binding.terminate(timeout), timeout + 5.seconds)
      finally
        if owned then
          // The last responses are handed to the connections' TCP actors when the binding counts them terminated:
          // they get a moment to reach their sockets before the actors stop with the system (which resets them)
          Thread.sleep(PekkoServer.FlushMillis)
          Await.ready(system.terminate(), 10.seconds)
      ()
