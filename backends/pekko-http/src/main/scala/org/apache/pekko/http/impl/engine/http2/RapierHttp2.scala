package org.apache.pekko.http.impl.engine.http2

import org.apache.pekko.NotUsed
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.impl.engine.parsing.{HttpHeaderParser, RapierParsing}
import org.apache.pekko.http.impl.engine.server.{HttpAttributes, ServerTerminator}
import org.apache.pekko.http.scaladsl.{Http, HttpExt}
import org.apache.pekko.http.scaladsl.model.http2.PeerClosedStreamException
import org.apache.pekko.http.impl.util.StreamUtils
import org.apache.pekko.http.scaladsl.model.{HttpEntity, HttpRequest, HttpResponse, ParsingException}
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import org.apache.pekko.stream.Attributes
import org.apache.pekko.stream.TLSProtocol.{SessionBytes, SslTlsInbound, SslTlsOutbound}
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Keep}
import org.apache.pekko.util.ByteString

import java.net.InetSocketAddress
import scala.concurrent.duration.{Duration, FiniteDuration}
import scala.concurrent.{ExecutionContext, Future}

/**
 * pekko-http's HTTP/2 server layer for a connection Rapier binds itself: pekko-http offers it only behind its own
 * binding, which has no place for Rapier's guard, and keeps its parts to its own package, where this lives.
 */
object RapierHttp2:
  /** How a connection's HTTP/2 layer ends: a GOAWAY, its streams in progress given until the deadline. */
  type Terminate = FiniteDuration => Future[Any]

  /**
   * One connection's HTTP/2 layer, its requests answered by `handler`, as many at once as the settings' streams, with
   * `watch` between its frames and the connection's bytes. pekko-http's server stack, but: its idle timeout, which ends
   * a connection without a GOAWAY, and its throttle on resets, which slows a rapid-reset client instead of ending it,
   * are left to the watch; a request stream's content-length and early answer are held to RFC 9113
   * ([[RapierRequestStreams]]); a request naming a pseudo-header pekko-http does not know (which it fails on with
   * INTERNAL_ERROR) or a field in capitals (which it takes) is refused as malformed (§8.2.1, §8.3); and a request's
   * declared length is kept on its entity.
   */
  def layer(
      handler: HttpRequest => Future[HttpResponse],
      settings: ServerSettings,
      remote: InetSocketAddress,
      watch: BidiFlow[ByteString, ByteString, ByteString, ByteString, NotUsed],
      log: LoggingAdapter
  )(using system: ActorSystem): Flow[SslTlsInbound, SslTlsOutbound, Terminate] =
    val unwatched = settings.withTimeouts(settings.timeouts.withIdleTimeout(Duration.Inf))
    val http = Http()
    val stack = TelemetrySpi
      .create(system)
      .serverConnection
      .atop(httpLayer(unwatched, log, http))
      .atopMat(Http2Blueprint.serverDemux(unwatched.http2Settings, Nil, upgraded = false))(Keep.right)
      .atop(BidiFlow.fromGraph(RapierRequestStreams()))
      .atop(Http2Blueprint.hpackCoding(HttpHeaderParser(unwatched.parserSettings, log), unwatched.parserSettings))
      .atop(Http2Blueprint.framing(log))
      .atop(clientsMistakes)
      .atop(Http2Blueprint.errorHandling(log))
      .atop(watch)
      .atop(Http2Blueprint.unwrapTls)
    Http2Blueprint
      .handleWithStreamIdHeader(settings.http2Settings.maxConcurrentStreams)(handler)(using system.dispatcher)
      .joinMat(stack)(Keep.right)
      .addAttributes(HttpAttributes.remoteAddress(remote))
      // A stage failing on a client's frames is no error of the server's; the others are logged with INTERNAL_ERROR
      .addAttributes(Attributes.logLevels(onFailure = Attributes.LogLevels.Off))
      .mapMaterializedValue(terminator => deadline => terminator.terminate(deadline)(using ExecutionContext.parasitic))

  // pekko-http's layer between streams and messages, each request's fields checked first, and its declared length
  // kept: pekko-http makes a streamed body of unknown length, and RapierRequestStreams holds the DATA to it
  private def httpLayer(settings: ServerSettings, log: LoggingAdapter, http: HttpExt)
      : BidiFlow[HttpResponse, Http2SubStream, Http2SubStream, HttpRequest, NotUsed] =
    val master = HttpHeaderParser(settings.parserSettings, log)
    BidiFlow.fromFlows(
      Flow[HttpResponse].map(ResponseRendering(settings, log, http.dateHeaderRendering)),
      Flow[Http2SubStream].via(StreamUtils.statefulAttrsMap { attributes =>
        val parse = RequestParsing.parseRequest(master.createShallowCopy(), settings, attributes)
        stream => withLength(parse(wellFormed(stream)), stream)
      })
    )

  // The request pseudo-headers pekko-http parses; `:status` it refuses itself
  private val Known = Set(":method", ":scheme", ":authority", ":path", ":status")

  private def wellFormed(stream: Http2SubStream): Http2SubStream =
    for (name, _) <- stream.initialHeaders.keyValuePairs do
      if name.startsWith(":") && !Known.contains(name) then
        throw Http2Compliance.Http2ProtocolException(s"Malformed request: unknown pseudo-header '$name'")
      else if name.exists(c => c >= 'A' && c <= 'Z') then
        throw Http2Compliance.Http2ProtocolException(s"Malformed request: field name '$name' has capitals")
    stream

  private def withLength(request: HttpRequest, stream: Http2SubStream): HttpRequest = request.entity match
    case HttpEntity.Chunked(contentType, chunks) =>
      RapierRequestStreams.declaredLength(stream.initialHeaders.keyValuePairs) match
        case length if length > 0 =>
          request.withEntity(HttpEntity.Default(
            contentType,
            length,
            chunks.collect { case c: HttpEntity.Chunk => c.data }
          ))
        case _ => request
    case _ => request

  // A field pekko-http can't parse fails its layer with a ParsingException, which would end the connection with
  // INTERNAL_ERROR: it is the client's PROTOCOL_ERROR (RFC 9113 §8.2.1)
  private val clientsMistakes: BidiFlow[ByteString, ByteString, ByteString, ByteString, NotUsed] =
    BidiFlow.fromFlows(
      Flow[ByteString].mapError {
        case e: ParsingException => Http2Compliance.Http2ProtocolException(e.getMessage)
        case e if RapierParsing.refused(e) => Http2Compliance.Http2ProtocolException(e.getMessage)
      },
      Flow[ByteString]
    )

  /**
   * A connection served by `http2` when `isHttp2` says so of the first bytes it carries, by `http1` otherwise; how its
   * HTTP/2 layer ends once chosen (never for HTTP/1.1).
   */
  def switch(
      isHttp2: SessionBytes => Boolean,
      http1: Flow[SslTlsInbound, SslTlsOutbound, Any],
      http2: Flow[SslTlsInbound, SslTlsOutbound, Terminate]
  ): Flow[SslTlsInbound, SslTlsOutbound, Future[Option[Terminate]]] =
    val plain = http1.mapMaterializedValue(_ => Http1)
    val framed = http2.mapMaterializedValue(terminate => Http2Ends(terminate): ServerTerminator)
    ProtocolSwitch(first => if isHttp2(first) then "h2" else "http/1.1", plain, framed).mapMaterializedValue(
      _.map {
        case Http2Ends(terminate) => Some(terminate)
        case _ => None
      }(using ExecutionContext.parasitic)
    )

  /** The HTTP/2 stream `request` came on, if it came over HTTP/2. */
  def streamOf(request: HttpRequest): Option[Int] = request.attribute(Http2.streamId)

  /**
   * Whether `e`, failing a request's body, says its client has gone: it reset the stream, or the connection ended
   * (a GOAWAY, or the client's close) before the body's end.
   */
  def clientGone(e: Throwable): Boolean =
    e.isInstanceOf[PeerClosedStreamException] || (e eq Http2StreamHandling.ConnectionWasAbortedException)

  private object Http1 extends ServerTerminator:
    def terminate(deadline: FiniteDuration)(implicit ex: ExecutionContext): Future[Http.HttpTerminated] =
      Future.successful(Http.HttpServerTerminated)

  private final case class Http2Ends(ends: Terminate) extends ServerTerminator:
    def terminate(deadline: FiniteDuration)(implicit ex: ExecutionContext): Future[Http.HttpTerminated] =
      ends(deadline).map(_ => Http.HttpServerTerminated)
