package rapier.http4s.internal

import cats.effect.Async
import fs2.{Chunk, Stream}
import fs2.io.file.{Files, Path as FsPath}
import org.http4s.{Header, Headers, HttpVersion, Method as H4Method, Response, Status}
import org.typelevel.ci.CIString
import rapier.cats.{Fs2Body, Fs2Source}
import rapier.http4s.Http4sServerOptions
import rapier.server.ServerResponse
import rapier.server.spi.{ResponseRules, ResponseStream}

/**
 * Rapier's responses as http4s's: the status, the headers in order, `Content-Length` where the body's length is known
 * and the status has one (also for HEAD, whose body is not sent), and the body — bytes as they are, a file read in
 * chunks, an fs2 stream as the stream it is, any other streamed body pulled chunk by chunk.
 */
private[http4s] final class Responses[F[_]](options: Http4sServerOptions)(using F: Async[F]):
  private val fs2Body = new Fs2Body[F]

  def of(view: Http4sRequest[F], r: ServerResponse): Response[F] =
    val head = view.request.method eq H4Method.HEAD
    val status = Status.fromInt(r.status).getOrElse(Status.InternalServerError)
    val stream = r.stream
    val bytes = r.body
    val length: Long =
      if stream != null then stream.length
      else if bytes != null then bytes.length.toLong
      else 0L
    val headers = Headers(headersOf(r, if ResponseRules.hasContentLength(r.status) && length >= 0 then length else -1L))
    val body: Stream[F, Byte] =
      if head || !ResponseRules.hasContentLength(r.status) then
        if stream != null then stream.abandon()
        Stream.empty
      else if stream != null then bodyOf(stream)
      else if bytes != null && bytes.length > 0 then Stream.chunk(Chunk.array(bytes))
      else Stream.empty
    // A streamed request body is let go once the response is sent: the response may stream from it (an echo)
    val source = view.source
    val sent = if source == null then body else body.onFinalize(F.delay(source.nn.cancel()))
    Response[F](status, HttpVersion.`HTTP/1.1`, headers, sent)

  private def headersOf(r: ServerResponse, length: Long): List[Header.Raw] =
    val own = List.tabulate(r.headerCount)(i => Header.Raw(CIString(r.headerName(i)), r.headerValue(i)))
    if length >= 0 then own :+ Header.Raw(Responses.ContentLength, length.toString) else own

  private def bodyOf(stream: ResponseStream): Stream[F, Byte] = stream match
    case file: ResponseStream.File =>
      Files.forAsync[F].readRange(FsPath.fromNioPath(file.path), 64 * 1024, file.offset, file.offset + file.length)
    case chunks: ResponseStream.Chunks =>
      val own = chunks.source match
        case fs2: Fs2Source[?] => fs2.takeStream()
        case _ => null
      if own != null then own.asInstanceOf[Stream[F, Byte]] else fs2Body.read(chunks.source)

private[http4s] object Responses:
  val ContentLength: CIString = CIString("Content-Length")
