package rapier.server.compression

import rapier.model.HeaderNames
import rapier.server.*
import rapier.server.interceptor.Interceptor
import rapier.server.spi.{BodyReceiver, BodySource, ResponseStream}

import java.nio.ByteBuffer
import java.util.Locale

/** [[Compression]] around every route: each answer encoded as its request's `Accept-Encoding` asks, when it may be. */
private[server] final class CompressionInterceptor(c: Compression, render: ProblemRenderer) extends Interceptor:
  import CompressionInterceptor.*

  private val limit = c.requestLimit.getOrElse(0L)

  def apply[F[_]](route: Route, next: Handler[F])(using m: Monad[F]): Handler[F] =
    val encoding: Handler[F] = request => m.map(next(request))(encode(_, request))
    route match
      case _: Route.ToEndpoint if limit > 0 =>
        request =>
          val coding = request.headerOrNull(HeaderNames.ContentEncoding)
          if coding == null then encoding(request)
          else
            coding.nn.trim.toLowerCase(Locale.ROOT) match
              case "gzip" | "x-gzip" =>
                request.bodyDecoder = InflatingSource(_, gzip = true, limit)
                encoding(request)
              case "deflate" =>
                request.bodyDecoder = InflatingSource(_, gzip = false, limit)
                encoding(request)
              case "identity" | "" => encoding(request)
              case _ => m.unit(UnsupportedCoding(render))
      case _ => encoding

  // Accept-Encoding is read only for an answer that may be compressed: most aren't, and it costs a list.
  private def encode(r: ServerResponse, request: rapier.server.spi.ServerRequest): ServerResponse =
    val status = r.status
    val bytes = r.body
    val chunks = r.stream match
      case s: ResponseStream.Chunks => s
      case _ => null
    if status < 200 || status == 204 || status == 206 || status == 304 || r.webSocket != null ||
      (bytes == null && chunks == null) || r.hasHeader(HeaderNames.ContentEncoding) || !compressible(r)
    then r
    else
      r.addVary(HeaderNames.AcceptEncoding)
      val coding = Coding.choose(request.headerValues(HeaderNames.AcceptEncoding))
      if coding == null then r
      else if bytes != null then
        if bytes.nn.length < c.minSize && !coding.nn.identityRefused then r
        else
          val encoder = Encoder(coding.nn.gzip, c.level, bytes.nn.length / 4 + 64)
          try
            encoder.input(ByteBuffer.wrap(bytes.nn), flush = false)
            encoder.finish()
            r.setBody(encoder.bytes())
          finally encoder.end()
          encoded(r, coding.nn)
      else
        r.setStream(ResponseStream.Chunks(
          CompressingSource(chunks.nn.source, Encoder(coding.nn.gzip, c.level, 8192)),
          -1
        ))
        encoded(r, coding.nn)

  private def compressible(r: ServerResponse): Boolean =
    r.header(HeaderNames.ContentType) match
      case Some(value) =>
        val semicolon = value.indexOf(';')
        c.compressible((if semicolon < 0 then value else value.substring(0, semicolon)).trim.toLowerCase(Locale.ROOT))
      case None => false

private[server] object CompressionInterceptor:
  // RFC 9110 §15.5.16: a content coding not accepted is a 415, with the codings that are (RFC 7694).
  private def UnsupportedCoding(render: ProblemRenderer): ServerResponse =
    render(
      Problem(
        rapier.model.StatusCode.UnsupportedMediaType,
        "The request body's Content-Encoding is not one this server decodes: gzip or deflate.",
        headers = List(rapier.model.Header(HeaderNames.AcceptEncoding, "gzip, deflate"))
      )
    )

  private def encoded(r: ServerResponse, coding: Coding): ServerResponse =
    r.removeHeader(HeaderNames.ContentLength)
    r.addHeader(HeaderNames.ContentEncoding, if coding.gzip then "gzip" else "deflate")
    // Another representation's bytes: a strong validator of the identity one no longer holds (RFC 9110 §8.8.3).
    r.header(HeaderNames.ETag) match
      case Some(tag) if !tag.startsWith("W/") =>
        r.removeHeader(HeaderNames.ETag)
        r.addHeader(HeaderNames.ETag, s"W/$tag")
      case _ => ()
    r

/** The coding chosen from `Accept-Encoding`, and whether the request refused the identity coding. */
private[server] final case class Coding(gzip: Boolean, identityRefused: Boolean)

private[server] object Coding:
  /**
   * The coding `Accept-Encoding` prefers among gzip and deflate (gzip on a tie), or null when it accepts neither, or
   * says nothing: RFC 9110 §12.5.3, with `*` standing for what it doesn't name and a weight of 0 refusing.
   */
  def choose(values: List[String]): Coding | Null =
    if values.isEmpty then null
    else
      val accepted = AcceptEncoding.parse(values)
      val gzip = accepted.weight("gzip")
      val deflate = accepted.weight("deflate")
      if gzip <= 0 && deflate <= 0 then null
      else Coding(gzip >= deflate, accepted.refusesIdentity)

/**
 * A streamed body compressed as it is pulled: each chunk encoded and flushed, so that the client can decode what the
 * logic sent without waiting for more; the body's end brings the last bytes (gzip's trailer). One pull of the backend's
 * is one pull of the source.
 */
private final class CompressingSource(source: BodySource, encoder: Encoder) extends BodySource:
  private var done = false
  private var downstream: BodyReceiver | Null = null

  private val upstream = new BodyReceiver:
    def onChunk(chunk: ByteBuffer): Unit =
      val to = downstream.nn
      try
        encoder.input(chunk, flush = true)
        if encoder.isEnded then to.onError(java.util.concurrent.CancellationException("the body was cancelled"))
        else to.onChunk(encoder.output())
      catch case e: Exception => fail(to, e)

    def onEnd(): Unit =
      val to = downstream.nn
      try
        encoder.finish()
        done = true
        val last = encoder.output()
        encoder.end()
        if last.hasRemaining then to.onChunk(last) else to.onEnd()
      catch case e: Exception => fail(to, e)

    def onError(cause: Throwable): Unit =
      encoder.end()
      downstream.nn.onError(cause)

  def declaredLength: Long = -1L

  def pull(receiver: BodyReceiver): Unit =
    if done then receiver.onEnd()
    else
      downstream = receiver
      source.pull(upstream)

  def cancel(): Unit =
    source.cancel()
    encoder.end()

  override def answersOnThisThread: Boolean = source.answersOnThisThread

  private def fail(to: BodyReceiver, e: Exception): Unit =
    encoder.end()
    source.cancel()
    to.onError(e)
