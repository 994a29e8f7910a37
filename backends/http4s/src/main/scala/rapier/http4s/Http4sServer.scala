package rapier.http4s

import cats.effect.std.Dispatcher
import cats.effect.std.Semaphore
import cats.effect.{Async, Deferred, Resource}
import com.comcast.ip4s.{Host, Port}
import fs2.io.net.{Network, RapierGuardedNetwork, Socket}
import fs2.io.net.tls.{RapierGuardedTLSContext, TLSParameters, TLSSocket}
import cats.data.Kleisli
import org.http4s.{HttpApp, Response, Status}
import org.http4s.ember.server.{EmberServerBuilder, RapierHttp2}
import org.typelevel.log4cats.Logger
import rapier.cats.CatsRunner
import org.typelevel.log4cats.slf4j.Slf4jLogger
import rapier.http4s.internal.{
  EmberLog,
  GuardedSocket,
  HandshakeDeadline,
  Http2Socket,
  Http2Watch,
  Http4sRequest,
  NoRenegotiation,
  Responses,
  WebSocketWatches
}
import rapier.server.spi.{FramingGuard, Http2Frames, Http2Ledger, Http2Stalls, RefusalMarker}
import rapier.server.{Http2, ServerBuilder, ServerEndpoint, Tls}

import java.net.InetSocketAddress
import scala.concurrent.duration.*
import scala.concurrent.{Await, TimeoutException}

/**
 * A standalone Rapier server on http4s's Ember, for logic in any `F[_]: Async`: the endpoints as an
 * [[Http4sServerInterpreter]]'s `app` (every request answered, rejections included), started as a resource. Its
 * sockets are the given fs2 `Network[F]`'s, as Ember's own builder takes them: for `IO`, the one on the runtime's own
 * polling threads.
 *
 * {{{
 * Http4sServer[IO]().withPort(8080).addEndpoint(hello).start().useForever
 * }}}
 */
final case class Http4sServer[F[_]](
    endpoints: List[ServerEndpoint[F]] = Nil,
    options: Http4sServerOptions = Http4sServerOptions.default
)(using F: Async[F], network: Network[F])
    extends ServerBuilder[F, Http4sServerOptions, Http4sServer[F]]:
  type Started = Resource[F, Http4sServer.Binding]

  protected def copyWith(endpoints: List[ServerEndpoint[F]], options: Http4sServerOptions): Http4sServer[F] =
    Http4sServer(endpoints, options)

  /**
   * The server, bound when the resource is used and stopped when it is released (or by its binding's `stop()`).
   * @throws IllegalArgumentException
   *   if an endpoint can't be served, or the host or port is not one Ember can bind
   */
  def start(): Resource[F, Http4sServer.Binding] =
    val marker = RefusalMarker.random()
    val watches = WebSocketWatches()
    val interpreter = Http4sServerInterpreter[F](endpoints, options, marker, watches)
    // Loaded before anything starts: a key that can't be read fails here. Over TLS the guard reads decrypted bytes.
    val tls = options.tls.map(t => (t, t.sslContext()))
    val deadline = Http4sServer.finite(options.headerReadTimeout)
    val logger = EmberLog(Slf4jLogger.getLoggerFromName[F](EmberLog.EmberLoggerName))
    val h2 = options.http2.map(Http4sServer.Http2Sessions[F](_, options, logger))
    val guarded = RapierGuardedNetwork[F](
      network,
      if tls.isDefined then raw => HandshakeDeadline(raw, deadline)
      else
        val h2c = h2.filter(_ => options.http2.exists(_.cleartext))
        raw => Http4sServer.guard[F](options, marker, null, h2c.map(_.entry(raw, null)).orNull, watches).apply(raw)
    )
    val host = Host
      .fromString(options.host)
      .getOrElse(throw IllegalArgumentException(s"not a host name or address: ${options.host}"))
    val port = Port.fromInt(options.port).getOrElse(throw IllegalArgumentException(s"not a port: ${options.port}"))
    val ember = EmberServerBuilder
      .default[F](using F, guarded)
      .withHost(host)
      .withPort(port)
      .withHttpWebSocketApp { webSockets =>
        val app = interpreter.app(webSockets)
        h2.foreach(_.app = app)
        app
      }
      // Ember bounds the whole head, request line included; Rapier checks the line (414) and the fields (431) apart
      .withMaxHeaderSize(options.maxInitialLineLength + options.maxHeaderSize)
      .withIdleTimeout(Http4sServer.finite(options.idleTimeout))
      // The head deadline is the guard's, which answers 408: Ember's own closes without an answer, so it comes later
      .withRequestHeaderReceiveTimeout(Http4sServer.finite(options.headerReadTimeout * 2))
      .withShutdownTimeout(options.shutdownTimeout)
      .withMaxConnections(options.maxConnections)
      .withMaxWebSocketMessageSize(Http4sServer.frameLimit(interpreter.maxWebSocketMessageSize))
      .withLogger(logger)
    // Rapier serves HTTP/2 itself, found by its guard: Ember is never asked to, nor told when ALPN chose h2
    val served = tls match
      case None => ember
      case Some((settings, context)) =>
        val secured = RapierGuardedTLSContext[F](
          network.tlsContext.fromSSLContext(context),
          (decrypted, raw) =>
            val arrived = raw match
              case timed: HandshakeDeadline[?] => timed.disarm
              case _ => null
            val entry = decrypted match
              case secured: TLSSocket[F] @unchecked => h2.map(_.entry(secured, secured.applicationProtocol)).orNull
              case _ => null
            Http4sServer.guard[F](options, marker, arrived, entry, watches).apply(decrypted)
          ,
          new cats.arrow.FunctionK[F, F]:
            def apply[A](fa: F[A]): F[A] = F.timeout(fa, deadline)
          ,
          NoRenegotiation(_)
        )
        ember.withTLS(secured, Http4sServer.parameters(settings, context, options.http2.isDefined))
    // Released without waiting past the shutdown timeout for what it still runs: Ember's release, which waits for the
    // requests in progress, can't be cancelled, and a request's logic may never complete.
    CatsRunner.dispatcher[F](options.shutdownTimeout).flatMap { dispatcher =>
      Resource.make(F.map(served.build.allocated) { (server, release) =>
        val stop = () =>
          h2.foreach(sessions => dispatcher.unsafeRunSync(sessions.stop))
          Http4sServer.within(dispatcher, release, options.shutdownTimeout)
        Http4sServer.Binding(server.addressIp4s.toInetSocketAddress, interpreter, stop)
      })(binding => F.blocking(binding.stop()))
    }

object Http4sServer:
  /** Each connection's framing guard, in front of Ember's parser, with the head deadline. */
  private def guard[F[_]: Async](
      options: Http4sServerOptions,
      marker: RefusalMarker,
      arrived: (() => Unit) | Null,
      h2: GuardedSocket.Http2[F] | Null,
      watches: WebSocketWatches
  ): Socket[F] => Socket[F] =
    socket =>
      val guard = FramingGuard(options.maxInitialLineLength, options.maxHeaderSize, marker)
      GuardedSocket(socket, guard, finite(options.headerReadTimeout), arrived, h2, watches)

  /**
   * The server's HTTP/2 connections, each served by [[RapierHttp2]] with the server's app (known once Ember has built
   * it, before it accepts a connection) and Rapier's limits, until it ends or the server stops.
   */
  private final class Http2Sessions[F[_]](http2: Http2, options: Http4sServerOptions, logger: Logger[F])(using
      F: Async[F]
  ):
    @volatile var app: HttpApp[F] | Null = null
    private val stopping = Deferred.unsafe[F, Unit]
    private val stalls = Http2Stalls(http2.maxStalledStreams)
    private val idleNanos = rapier.timeoutNanos(options.idleTimeout)
    // Ember bounds a header block as sent (HPACK-encoded), Rapier the fields it makes (431): the block may be larger
    private val limits =
      RapierHttp2.Limits(http2.maxConcurrentStreams, http2.initialWindowSize, 2 * options.maxHeaderSize)

    /** How `connection` may come to speak HTTP/2 (by ALPN's `protocol` over TLS, by its preface otherwise). */
    def entry(connection: Socket[F], protocol: F[String] | Null): GuardedSocket.Http2[F] =
      GuardedSocket.Http2(
        protocol,
        (socket, first, arrived) =>
          F.flatMap(F.product(Deferred[F, Unit], Semaphore[F](1))) { (ended, writing) =>
            val watch = Http2Watch(http2, limits.maxHeaderListSize, idleNanos, stalls)
            val answers = Answers[F]()
            val session = Http2Socket(socket, first, arrived, watch, ended, writing)
            val serving = RapierHttp2.serve(
              session,
              connection,
              watched(watch, answers),
              limits,
              finite(options.headerReadTimeout),
              // The watch's idle and stall deadlines count progress; Ember's resets a stream, PROTOCOL_ERROR, when
              // its clock runs out, pings or not
              finite(Duration.Inf),
              logger
            )
            val sessionEnds =
              F.race(F.race(serving, ended.get), F.race(stopping.get, deadlines(session, watch, answers)))
            F.guarantee(F.void(sessionEnds), F.delay(watch.close()))
          }
      )

    // Resets the answers the watch finds stalled (Ember waits for a window without end); ends with a GOAWAY a connection
    // idle for the idle timeout (pings don't count) and one whose client spends longer than the head deadline on its
    // first SETTINGS or a header block (Ember has no deadline for either).
    private def deadlines(session: Http2Socket[F], watch: Http2Watch, answers: Answers[F]): F[Unit] =
      val headNanos = rapier.timeoutNanos(options.headerReadTimeout)
      val tick = Http2Ledger.tick(idleNanos, headNanos)
      def check: F[Unit] = F.flatMap(F.sleep(tick.nanos)) { _ =>
        val now = System.nanoTime()
        val stalled = watch.stalled(now)
        val reset =
          if stalled.isEmpty then F.unit
          else
            val frames = stalled.iterator.map(stream => Http2Frames.rstStream(stream, Http2Frames.Cancel)).toArray
            // The client's CANCEL first: Ember resets the stream itself once its body ends (its own is left out)
            F.productR(session.send(fs2.Chunk.array(frames.flatten)))(answers.end(stalled))
        F.flatMap(reset) { _ =>
          if watch.cut >= 0 then session.goAway(watch.cut)
          else if watch.idle(now) || (headNanos > 0 && watch.headerBlockFor(headNanos)) then
            session.goAway(Http2Frames.NoError)
          else check
        }
      }
      check

    // The app, each request given the :authority the watch read, each streamed answer's body endable (`answers`); a
    // refused stream's answered by no one (Ember has been told it was cancelled), and cheaply.
    private def watched(watch: Http2Watch, answers: Answers[F]): HttpApp[F] =
      val served = app.nn
      Kleisli { request =>
        RapierHttp2.streamOf(request) match
          case Some(stream) if watch.wasRefused(stream) => F.pure(Response[F](Status.ServiceUnavailable))
          case Some(stream) =>
            val authority = watch.authorityOf(stream)
            val response =
              served.run(if authority == null then request
              else request.withAttribute(Http4sRequest.Authority, authority))
            F.flatMap(response)(answers.endable(stream, _))
          case None => served.run(request)
      }

    /** Ends every session: the server is stopping. */
    def stop: F[Unit] = F.void(stopping.complete(()))

  /**
   * The streamed answers of one HTTP/2 connection, by stream, each body endable from outside: Ember goes on waiting
   * for the window of an answer whose stream Rapier gave up, holding its chunk and its file, until it reads the
   * stream's CANCEL. An answer whose body is in memory is not kept.
   */
  private final class Answers[F[_]](using F: Async[F]):
    private val ends = java.util.concurrent.ConcurrentHashMap[Integer, Deferred[F, Either[Throwable, Unit]]]()

    def endable(stream: Int, response: Response[F]): F[Response[F]] =
      if response.attributes.lookup(Responses.Streamed).isEmpty then F.pure(response)
      else
        F.map(Deferred[F, Either[Throwable, Unit]]) { end =>
          ends.put(stream, end)
          val ending = response.body.interruptWhen(end.get).onFinalize(F.delay { ends.remove(stream, end); () })
          response.withBodyStream(ending)
        }

    /** Ends the bodies of `streams`' answers. */
    def end(streams: Seq[Int]): F[Unit] =
      streams.foldLeft(F.unit) { (done, stream) =>
        val end = ends.remove(stream)
        if end == null then done else F.productR(done)(F.void(end.complete(Right(()))))
      }

  /**
   * The settings' TLS versions, cipher suites and groups (those `context` knows) and client certificates, ALPN naming
   * HTTP/1.1, and h2 before it when served.
   */
  private def parameters(tls: Tls, context: javax.net.ssl.SSLContext, http2: Boolean): TLSParameters =
    TLSParameters(
      algorithmConstraints = Some(tls.groupConstraints),
      applicationProtocols = Some(if http2 then List("h2", "http/1.1") else List("http/1.1")),
      cipherSuites = Some(tls.suitesAmong(context.getSupportedSSLParameters.getCipherSuites).toList),
      protocols = Some(tls.protocols),
      needClientAuth = tls.clientAuth == Tls.ClientAuth.Required,
      wantClientAuth = tls.clientAuth == Tls.ClientAuth.Optional
    )

  /**
   * Ember's frame limit, the server's: twice the largest message an endpoint takes (64 KiB at least), so that a frame
   * past an endpoint's own limit reaches it and is closed with 1009; Ember drops a connection whose frame is past its
   * own, without a close, holding a frame whole as it reads it.
   */
  private def frameLimit(largestMessage: Int): Int =
    math.min(Int.MaxValue.toLong, math.max(64L * 1024, 2L * largestMessage)).toInt

  /** A running Ember server; `stop()` releases it, gracefully within the shutdown timeout. */
  final class Binding private[http4s] (
      val address: InetSocketAddress,
      interpreter: Http4sServerInterpreter[?],
      release: () => Unit
  ) extends rapier.server.Binding:
    def bodyBytesHeld: Long = interpreter.bodyBytesHeld
    protected def shutdown(): Unit =
      // Closed first, with a close of their own: Ember's release waits for their connections to end
      interpreter.closeWebSockets()
      release()

  /**
   * Runs Ember's release, which waits for the requests in progress; past the shutdown timeout and a grace of 2 s, the
   * release is cancelled (as far as it can be) and the server counted as stopped, rather than waited for without end:
   * a request whose logic never completes can't hold a stop forever.
   */
  private def within[F[_]](dispatcher: Dispatcher[F], release: F[Unit], timeout: FiniteDuration): Unit =
    val (done, cancel) = dispatcher.unsafeToFutureCancelable(release)
    try Await.result(done, timeout + 2.seconds)
    catch
      case _: TimeoutException =>
        Http4sServer.log.warn(
          s"Ember had not stopped ${timeout + 2.seconds} after it was asked to: its release is cancelled"
        )
        cancel()
        ()

  private val log = org.slf4j.LoggerFactory.getLogger(classOf[Http4sServer[?]])

  /** Ember takes finite durations; "none" is a very long one. */
  private def finite(d: Duration): FiniteDuration = d match
    case f: FiniteDuration => f
    case _ => FiniteDuration(365L * 24 * 3600, "s")
