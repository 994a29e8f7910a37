package rapier.pekko.internal

import org.apache.pekko.{Done, NotUsed}
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.headers.Connection as ConnectionHeader
import org.apache.pekko.http.scaladsl.model.{AttributeKey, HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Keep, Sink, Tcp}
import org.apache.pekko.stream.scaladsl.{TLS, TLSPlacebo}
import org.apache.pekko.stream.TLSClosing
import org.apache.pekko.stream.TLSProtocol.{SendBytes, SessionBytes, SslTlsInbound, SslTlsOutbound}
import rapier.server.Tls

import javax.net.ssl.{SSLContext, SSLEngine, SSLSession}
import org.apache.pekko.stream.{KillSwitches, Materializer, UniqueKillSwitch}
import org.apache.pekko.util.ByteString
import rapier.server.spi.FramingGuard

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}

/**
 * A pekko-http server bound by Rapier: each connection's bytes go through a [[GuardStage]] before pekko-http's server
 * layer parses them (pekko-http's own binding has no place for a stage there). It does what that binding does around
 * the layer: at most `maxConnections` served at once, the others left in the backlog; and a graceful stop — no new
 * connection, idle ones closed, each request in progress answered with `Connection: close`, a request arriving
 * meanwhile answered `busy` — within a deadline, past which every connection left is closed.
 */
private[pekko] final class Connections(
    handler: HttpRequest => Future[HttpResponse],
    busy: () => HttpResponse,
    settings: ServerSettings,
    guard: () => FramingGuard,
    headDeadline: Duration,
    tls: Option[(SSLContext, Tls)]
)(using system: ActorSystem, materializer: Materializer):
  private val live = ConcurrentHashMap.newKeySet[Connections.Live]()
  private val stopping = AtomicBoolean()
  private val allClosed = Promise[Unit]()

  /** Binds `host:port`; the bound address and the TCP binding once listening. */
  def bind(host: String, port: Int): Future[Tcp.ServerBinding] =
    Tcp()
      .bind(host, port, settings.backlog, settings.socketOptions, halfClose = false, idleTimeout = Duration.Inf)
      .mapAsyncUnordered(settings.maxConnections)(serve)
      .toMat(Sink.ignore)(Keep.left)
      .run()

  private def serve(incoming: Tcp.IncomingConnection): Future[Done] =
    val connection = Connections.Live()
    val http = Http().serverLayer(settings, Some(incoming.remoteAddress), system.log).atop(TLSPlacebo())
    val plain = http.atop(GuardStage(guard, headDeadline))
    // TLS below the guard, which reads the request's bytes as they were sent
    val guarded = tls match
      case Some((context, settings)) =>
        plain.atop(Connections.encrypted(context, settings, headDeadline, s => connection.session = s))
      case None => plain
    // pekko-http's own binding adds its idle timeout below the layer too
    val layer = settings.idleTimeout match
      case t: FiniteDuration => guarded.atop(BidiFlow.bidirectionalIdleTimeout[ByteString, ByteString](t))
      case _ => guarded
    val requests = Flow[HttpRequest].mapAsync(1)(request => respond(connection, request))
    val (kill, done) = requests
      .join(layer)
      .joinMat(KillSwitches.singleBidi[ByteString, ByteString])(Keep.right)
      .watchTermination()(Keep.both)
      .joinMat(incoming.flow)(Keep.left)
      .run()
    connection.kill = kill
    live.add(connection)
    if stopping.get && connection.idle then connection.kill.shutdown()
    done.onComplete { _ =>
      live.remove(connection)
      if stopping.get && live.isEmpty then allClosed.trySuccess(())
    }(using ExecutionContext.parasitic)
    done.recover { case _ => Done }(using ExecutionContext.parasitic)

  // One request at a time per connection; once the server stops, the last response closes its connection.
  private def respond(connection: Connections.Live, request: HttpRequest): Future[HttpResponse] =
    if stopping.get || connection.closing then Future.successful(closing(connection, busy()))
    else
      connection.inFlight.incrementAndGet()
      val session = connection.session
      handler(if session == null then request else request.addAttribute(Connections.TlsSession, session)).map {
        response =>
          connection.inFlight.decrementAndGet()
          if response.header[ConnectionHeader].exists(_.hasClose) then connection.closing = true
          if stopping.get then closing(connection, response) else response
      }(using ExecutionContext.parasitic)

  private def closing(connection: Connections.Live, response: HttpResponse): HttpResponse =
    connection.closing = true
    if response.header[ConnectionHeader].exists(_.hasClose) then response
    else response.addHeader(ConnectionHeader("close"))

  /** Stops: no new connection (after `unbind`), idle ones closed, the others within `deadline`, then closed. */
  def stop(unbind: () => Future[Unit], deadline: FiniteDuration): Future[Unit] =
    given ExecutionContext = ExecutionContext.parasitic
    unbind().flatMap { _ =>
      stopping.set(true)
      live.forEach(c => if c.idle then c.kill.shutdown())
      if live.isEmpty then allClosed.trySuccess(())
      val late = org.apache.pekko.pattern.after(deadline)(Future.unit)
      Future.firstCompletedOf(List(allClosed.future, late)).map { _ =>
        live.forEach(_.kill.shutdown())
      }
    }

private[pekko] object Connections:
  /**
   * A connection's bytes through TLS: the handshake, and the first bytes of the first request after it, due within the
   * head's deadline; ALPN naming HTTP/1.1. `established` hears of the session with each piece of bytes it carries.
   */
  def encrypted(
      context: SSLContext,
      tls: Tls,
      headDeadline: Duration,
      established: SSLSession => Unit
  ): BidiFlow[ByteString, ByteString, ByteString, ByteString, NotUsed] =
    val received = Flow[SslTlsInbound].collect { case SessionBytes(session, bytes) =>
      established(session)
      bytes
    }
    val inbound = headDeadline match
      case d: FiniteDuration => received.initialTimeout(d)
      case _ => received
    BidiFlow
      .fromFlows(Flow[ByteString].map[SslTlsOutbound](SendBytes(_)), inbound)
      .atop(TLS(() => engine(context, tls), TLSClosing.eagerClose))

  private def engine(context: SSLContext, tls: Tls): SSLEngine =
    val engine = context.createSSLEngine()
    engine.setUseClientMode(false)
    val parameters = engine.getSSLParameters
    parameters.setProtocols(tls.protocols.toArray)
    parameters.setApplicationProtocols(Array("http/1.1"))
    tls.clientAuth match
      case Tls.ClientAuth.Required => parameters.setNeedClientAuth(true)
      case Tls.ClientAuth.Optional => parameters.setWantClientAuth(true)
      case Tls.ClientAuth.None => ()
    engine.setSSLParameters(parameters)
    engine

  /** A connection being served: how many of its requests are in progress, and how to close it. */
  /** The TLS session a request arrived in, for its client's certificates. */
  val TlsSession: AttributeKey[SSLSession] = AttributeKey[SSLSession]("rapier-tls-session")

  final class Live:
    val inFlight = AtomicInteger()
    // Set by the connection's TLS stage as bytes arrive, before the request they carry is parsed
    @volatile var session: SSLSession | Null = null
    @volatile var closing = false
    @volatile var kill: UniqueKillSwitch = null
    def idle: Boolean = inFlight.get == 0 && kill != null
