package rapier.pekko.internal

import org.apache.pekko.{Done, NotUsed}
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.impl.engine.http2.RapierHttp2
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.headers.Connection as ConnectionHeader
import org.apache.pekko.http.scaladsl.model.{AttributeKey, AttributeKeys, HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import org.apache.pekko.stream.TLSProtocol.{SendBytes, SessionBytes, SslTlsInbound, SslTlsOutbound}
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Keep, Sink, TLS, TLSPlacebo, Tcp}
import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, InHandler, OutHandler, TimerGraphStageLogic}
import org.apache.pekko.stream.{Attributes, FlowShape, Inlet, Outlet}
import org.apache.pekko.stream.{KillSwitches, Materializer, TLSClosing, UniqueKillSwitch}
import org.apache.pekko.util.ByteString
import rapier.server.spi.{FramingGuard, Http2Stalls, TlsRecords, WebSocketWatch}
import rapier.server.{Http2, Tls}

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import javax.net.ssl.{SSLContext, SSLEngine, SSLSession}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}

/**
 * A pekko-http server bound by Rapier: each connection's bytes go through a [[GuardStage]] before pekko-http's server
 * layer parses them (pekko-http's own binding has no place for a stage there), or, where `http2` is on and the
 * connection speaks it (ALPN's choice, an h2c preface), through pekko-http's HTTP/2 layer with Rapier's
 * [[Http2Watch]]. It does what that binding does around the layers: at most `maxConnections` served at once, the others left in the backlog; and a graceful stop — no new
 * connection, idle ones closed, each request in progress answered with `Connection: close`, a request arriving
 * meanwhile answered `busy` — within a deadline, past which every connection left is closed.
 */
private[pekko] final class Connections(
    handler: HttpRequest => Future[HttpResponse],
    busy: () => HttpResponse,
    settings: ServerSettings,
    guard: () => FramingGuard,
    headDeadline: Duration,
    tls: Option[(SSLContext, Tls)],
    http2: Option[Http2]
)(using system: ActorSystem, materializer: Materializer):
  private val live = ConcurrentHashMap.newKeySet[Connections.Live]()
  private val stopping = AtomicBoolean()
  private val allClosed = Promise[Unit]()
  private val stalls = Http2Stalls(http2.fold(1)(_.maxStalledStreams))
  // Rapier's HTTP/2 settings as pekko-http's: its stream limit, and each stream's window the initial one
  private val http2Settings = http2.fold(settings) { h2 =>
    settings.withHttp2Settings(
      settings.http2Settings
        .withMaxConcurrentStreams(h2.maxConcurrentStreams)
        .withIncomingStreamLevelBufferSize(h2.initialWindowSize)
    )
  }

  /** Binds `host:port`; the bound address and the TCP binding once listening. */
  def bind(host: String, port: Int): Future[Tcp.ServerBinding] =
    Tcp()
      .bind(host, port, settings.backlog, settings.socketOptions, halfClose = false, idleTimeout = Duration.Inf)
      .mapAsyncUnordered(settings.maxConnections)(serve)
      .toMat(Sink.ignore)(Keep.left)
      .run()

  private def serve(incoming: Tcp.IncomingConnection): Future[Done] =
    val connection = Connections.Live()
    val remote = incoming.remoteAddress
    // pekko-http's own binding adds its idle timeout below the layer too; HTTP/2's watch has its own
    val idle = settings.idleTimeout match
      case t: FiniteDuration => BidiFlow.bidirectionalIdleTimeout[SslTlsOutbound, SslTlsInbound](t)
      case _ => BidiFlow.identity[SslTlsOutbound, SslTlsInbound]
    val http1Layer = Http()
      .serverLayer(settings, Some(remote), system.log)
      .atop(TLSPlacebo())
      .atop(GuardStage(guard, headDeadline, connection))
      .atop(Connections.sessionBytes)
      .atop(idle)
    val http1 = Flow[HttpRequest]
      .via(Connections.EndRequests(connection))
      .mapAsync(1)(request => respond(connection, request))
      .join(http1Layer)
    // Its TLS engine, once created: ALPN's choice is read from it
    var engine: SSLEngine | Null = null
    // TLS below the guard, which reads the request's bytes as they were sent
    val secured = tls match
      case Some((context, t)) =>
        def created(): SSLEngine =
          val e = Connections.engine(context, t, http2.isDefined)
          engine = e
          e
        Connections.encrypted(() => created(), headDeadline, s => connection.session = s, () => closeSoon(connection))
      // Until h2c's preface or a request's first bytes come no layer is chosen, and none times the connection
      case None =>
        if http2.exists(_.cleartext) then Connections.plain(settings.idleTimeout, gatherPreface = Some(headDeadline))
        else Connections.plain(Duration.Inf, gatherPreface = None)
    // HTTP/2 by ALPN's choice over TLS, by its preface on a plain connection (h2c)
    val isHttp2: Option[SessionBytes => Boolean] = http2 match
      case Some(_) if tls.isDefined => Some(_ => engine != null && engine.nn.getApplicationProtocol == "h2")
      case Some(h2) if h2.cleartext => Some(first => first.bytes.startsWith(Connections.Preface))
      case _ => None
    val served: Flow[SslTlsInbound, SslTlsOutbound, Future[Option[RapierHttp2.Terminate]]] = (isHttp2, http2) match
      case (Some(chosen), Some(h2)) =>
        val watch = BidiFlow.fromGraph(Http2Watch(h2, settings.idleTimeout, headDeadline, stalls))
        val layer = RapierHttp2.layer(request => respond(connection, request), http2Settings, remote, watch, system.log)
        RapierHttp2.switch(chosen, http1, layer)
      case _ => http1.mapMaterializedValue(_ => Future.successful(None))
    val ((ends, kill), done) = served
      .join(secured)
      .joinMat(KillSwitches.singleBidi[ByteString, ByteString])(Keep.both)
      .watchTermination()(Keep.both)
      .joinMat(incoming.flow)(Keep.left)
      .run()
    connection.kill = kill
    ends.foreach(_.foreach(terminate => connection.http2 = terminate))(using ExecutionContext.parasitic)
    live.add(connection)
    if stopping.get && connection.idle then connection.end()
    done.onComplete { _ =>
      live.remove(connection)
      if stopping.get && live.isEmpty then allClosed.trySuccess(())
    }(using ExecutionContext.parasitic)
    done.recover { case _ => Done }(using ExecutionContext.parasitic)

  // pekko's TLS stage, its output closed, never notices that the layer above stopped reading: the connection stays
  // open while its client sends. It is closed once the stage has had time to send its last records.
  private def closeSoon(connection: Connections.Live): Unit =
    org.apache.pekko.pattern.after(Connections.CloseGrace)(Future.successful {
      val kill = connection.kill
      if kill != null then kill.shutdown()
    })

  // One request at a time per connection; once the server stops, the last response closes its connection.
  // Over HTTP/2 a stream ends, not its connection: no Connection field (RFC 9113 §8.2.2), a GOAWAY when stopping.
  // The request is counted before `stopping` is read, as `stop` sets `stopping` before it reads the count: either the
  // stop sees the request and leaves its connection open, or the request sees the stop and is answered 503.
  private def respond(connection: Connections.Live, request: HttpRequest): Future[HttpResponse] =
    val framed = RapierHttp2.streamOf(request).isDefined
    connection.inFlight.incrementAndGet()
    if stopping.get || connection.closing && !framed then
      connection.inFlight.decrementAndGet()
      Future.successful(if framed then busy() else closing(connection, busy()))
    else
      val session = connection.session
      val secured = if session == null then request else request.addAttribute(Connections.TlsSession, session)
      // An upgrade to a WebSocket may hand the connection's guard the rules its frames are watched by
      val upgrading = request.attribute(AttributeKeys.webSocketUpgrade).isDefined
      handler(if upgrading then secured.addAttribute(Connections.Watching, connection) else secured).map {
        response =>
          connection.inFlight.decrementAndGet()
          if framed then response.removeHeader(ConnectionHeader.name)
          else
            if response.header[ConnectionHeader].exists(_.hasClose) then connection.closing = true
            if stopping.get then closing(connection, response) else response
      }(using ExecutionContext.parasitic)

  private def closing(connection: Connections.Live, response: HttpResponse): HttpResponse =
    connection.closing = true
    if response.header[ConnectionHeader].exists(_.hasClose) then response
    else response.addHeader(ConnectionHeader("close"))

  /**
   * Whether a connection was serving a request, or spoke HTTP/2, when [[stop]] began: only such a connection can have
   * bytes on their way to its socket as the server stops.
   */
  @volatile var answeringAtStop = true

  /** Stops: no new connection (after `unbind`), idle ones closed, the others within `deadline`, then closed. */
  def stop(unbind: () => Future[Unit], deadline: FiniteDuration): Future[Unit] =
    given ExecutionContext = ExecutionContext.parasitic
    unbind().flatMap { _ =>
      stopping.set(true)
      var answering = false
      live.forEach(c =>
        val h2 = c.http2
        val idle = c.idle
        answering ||= h2 != null || !idle
        if h2 != null then h2.nn(deadline) else if idle then c.end()
      )
      answeringAtStop = answering
      if live.isEmpty then allClosed.trySuccess(())
      val late = org.apache.pekko.pattern.after(deadline)(Future.unit)
      Future.firstCompletedOf(List(allClosed.future, late)).map { _ =>
        live.forEach(_.kill.shutdown())
      }
    }

private[pekko] object Connections:
  /**
   * A plain connection's bytes as the TLS stage would carry them, the first due within `first`; where h2c is served,
   * gathered until they tell its preface from HTTP/1.1, a preface begun due whole within `gatherPreface`.
   */
  def plain(
      first: Duration,
      gatherPreface: Option[Duration]
  ): BidiFlow[SslTlsOutbound, ByteString, ByteString, SslTlsInbound, NotUsed] =
    val received = Flow[SessionBytes].map(b => b: SslTlsInbound)
    val inbound = gatherPreface.fold(received)(deadline => Flow.fromGraph(PrefaceGather(deadline)).via(received))
    BidiFlow.fromFlows(Flow[SslTlsOutbound], firstWithin(inbound, first)).atop(TLSPlacebo())

  /**
   * Holds a plain connection's first bytes until they tell h2c's preface from anything else (24 bytes of it, or one
   * that differs): pekko-http's protocol switch decides on the first piece it is given, and would take a preface split
   * across reads for HTTP/1.1. A preface begun must be whole within `deadline`, as a head must: the connection is
   * closed past it.
   */
  private final class PrefaceGather(deadline: Duration) extends GraphStage[FlowShape[SessionBytes, SessionBytes]]:
    private val in = Inlet[SessionBytes]("PrefaceGather.in")
    private val out = Outlet[SessionBytes]("PrefaceGather.out")
    val shape: FlowShape[SessionBytes, SessionBytes] = FlowShape(in, out)

    def createLogic(attributes: Attributes): GraphStageLogic =
      new TimerGraphStageLogic(shape) with InHandler with OutHandler:
        private var held: SessionBytes | Null = null
        private var gathering = true

        override protected def onTimer(key: Any): Unit = if gathering then completeStage()

        def onPush(): Unit =
          val piece = grab(in)
          if !gathering then push(out, piece)
          else
            val bytes = if held == null then piece.bytes else held.nn.bytes ++ piece.bytes
            if bytes.length >= Preface.length || !Preface.startsWith(bytes) then
              gathering = false
              held = null
              cancelTimer(PrefaceGather.Due)
              push(out, SessionBytes(piece.session, bytes))
            else
              if held == null then
                deadline match
                  case d: FiniteDuration => scheduleOnce(PrefaceGather.Due, d)
                  case _ =>
              held = SessionBytes(piece.session, bytes)
              pull(in)

        def onPull(): Unit = pull(in)

        override def onUpstreamFinish(): Unit =
          if held != null then emit(out, held.nn, () => completeStage()) else completeStage()

        setHandlers(in, out, this)

  private object PrefaceGather:
    private val Due = "preface"

  private def firstWithin[A, B](flow: Flow[A, B, NotUsed], deadline: Duration): Flow[A, B, NotUsed] = deadline match
    case d: FiniteDuration => flow.initialTimeout(d)
    case _ => flow

  /** The bytes a connection's TLS stage carries, for a layer reading bytes. */
  val sessionBytes: BidiFlow[ByteString, SslTlsOutbound, SslTlsInbound, ByteString, NotUsed] =
    BidiFlow.fromFlows(
      Flow[ByteString].map[SslTlsOutbound](SendBytes(_)),
      Flow[SslTlsInbound].collect { case SessionBytes(_, bytes) => bytes }
    )

  /**
   * A connection's bytes through TLS: the handshake, and the first bytes of the first request after it, due within the
   * head's deadline. `established` hears of the session with each piece of bytes it carries; `unread`, that the layer
   * above reads no more (or the client ended).
   */
  def encrypted(
      engine: () => SSLEngine,
      headDeadline: Duration,
      established: SSLSession => Unit,
      unread: () => Unit
  ): BidiFlow[SslTlsOutbound, ByteString, ByteString, SslTlsInbound, NotUsed] =
    val received = Flow[SslTlsInbound]
      .map { inbound =>
        inbound match
          case SessionBytes(session, _) => established(session)
          case _ => ()
        inbound
      }
      .watchTermination() { (_, done) =>
        done.onComplete(_ => unread())(using ExecutionContext.parasitic)
        NotUsed
      }
    BidiFlow.fromFlows(
      Flow[SslTlsOutbound],
      firstWithin(received, headDeadline)
    ).atop(TLS(engine, TLSClosing.eagerClose)).atop(noRenegotiation)

  /**
   * The client's TLS records read as they come, before the engine: a renegotiation it starts (which the JDK's engine
   * would honour, a handshake's CPU each) ends the connection.
   */
  private val noRenegotiation: BidiFlow[ByteString, ByteString, ByteString, ByteString, NotUsed] =
    BidiFlow.fromFlows(
      Flow[ByteString],
      Flow[ByteString].statefulMap(() => TlsRecords())(
        (records, bytes) =>
          val array = bytes.toArrayUnsafe()
          if records.feed(array, 0, array.length) then throw Renegotiation else (records, bytes)
        ,
        _ => None
      )
    )

  private object Renegotiation
      extends java.io.IOException("A TLS client started a renegotiation, which the server refuses")
      with scala.util.control.NoStackTrace

  /** A server's engine: the settings' versions and client certificates, ALPN naming HTTP/1.1, and h2 before it. */
  def engine(context: SSLContext, tls: Tls, http2: Boolean): SSLEngine =
    val engine = context.createSSLEngine()
    engine.setUseClientMode(false)
    val parameters = engine.getSSLParameters
    tls.configure(parameters, engine.getSupportedCipherSuites)
    parameters.setApplicationProtocols(if http2 then Array("h2", "http/1.1") else Array("http/1.1"))
    tls.clientAuth match
      case Tls.ClientAuth.Required => parameters.setNeedClientAuth(true)
      case Tls.ClientAuth.Optional => parameters.setWantClientAuth(true)
      case Tls.ClientAuth.None => ()
    engine.setSSLParameters(parameters)
    engine

  // Time for the TLS stage to send its last records (a response's end, close_notify) once nothing reads
  private val CloseGrace = 1.second

  // RFC 9113 §3.4: what a client sends first on an HTTP/2 connection
  val Preface: ByteString = ByteString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")

  /** The TLS session a request arrived in, for its client's certificates. */
  val TlsSession: AttributeKey[SSLSession] = AttributeKey[SSLSession]("rapier-tls-session")

  /** The connection a WebSocket upgrade arrived on, for the rules its frames are watched by once it switches. */
  val Watching: AttributeKey[Live] = AttributeKey[Live]("rapier-websocket-watching")

  /** A connection being served: how many of its requests are in progress, and how to close it. */
  final class Live:
    val inFlight = AtomicInteger()
    // Set by the connection's TLS stage as bytes arrive, before the request they carry is parsed
    @volatile var session: SSLSession | Null = null
    @volatile var closing = false
    // How its HTTP/2 layer ends, once the connection is found speaking HTTP/2
    @volatile var http2: RapierHttp2.Terminate | Null = null
    @volatile var kill: UniqueKillSwitch = null
    // The rules of the WebSocket its 101 now being written switches to, for its GuardStage to watch by
    @volatile var webSocketWatch: WebSocketWatch | Null = null
    // The close frame Rapier meant where pekko-http writes its 1011, once its WebSocket closes with another code
    @volatile var webSocketClose: Array[Byte] | Null = null
    // Ends its HTTP/1.1 requests, once that layer runs (see EndRequests)
    @volatile var endRequests: (() => Unit) | Null = null
    def idle: Boolean = inFlight.get == 0 && kill != null

    /**
     * Closes an idle connection: after the response its last request was answered with, whose bytes may still be on
     * their way through the layers (TLS's included) below the HTTP one, or at once while no layer serves it.
     */
    def end(): Unit =
      val ending = endRequests
      if ending != null then ending() else kill.shutdown()

  /**
   * Passes a connection's HTTP/1.1 requests on to the logic until the server stops, then ends them on the logic's side
   * only: pekko-http's layer renders the responses it was given and closes the connection after their bytes, which a
   * kill switch below TLS could cut short.
   */
  final class EndRequests(connection: Live) extends GraphStage[FlowShape[HttpRequest, HttpRequest]]:
    private val in = Inlet[HttpRequest]("EndRequests.in")
    private val out = Outlet[HttpRequest]("EndRequests.out")
    val shape: FlowShape[HttpRequest, HttpRequest] = FlowShape(in, out)

    def createLogic(attributes: Attributes): GraphStageLogic =
      new GraphStageLogic(shape) with InHandler with OutHandler:
        override def preStart(): Unit =
          val ended = getAsyncCallback[Unit](_ => if !isClosed(out) then complete(out))
          connection.endRequests = () => ended.invoke(())

        // A request pulled before the end and arriving after it is refused by the connection's close
        def onPush(): Unit =
          val request = grab(in)
          if !isClosed(out) then push(out, request)
        def onPull(): Unit = if !hasBeenPulled(in) && !isClosed(in) then pull(in)

        setHandlers(in, out, this)
