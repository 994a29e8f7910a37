package rapier.http4s.internal

import cats.effect.Async
import fs2.io.file.{Files, Path as FsPath}
import fs2.{Chunk, Pull, Stream}
import org.http4s.{Header, Headers, HttpVersion, Method as H4Method, Response, Status}
import org.typelevel.ci.CIString
import org.slf4j.LoggerFactory
import rapier.cats.{Fs2Body, Fs2Source}
import rapier.model.StatusCode
import rapier.server.ServerResponse
import rapier.server.spi.{DateField, ResponseRules, ResponseStream}

import java.io.IOException

/**
 * Rapier's responses as http4s's: the status, the headers in order, `Content-Length` where the body's length is known
 * and the status has one (also for HEAD, whose body is not sent), and the body — bytes as they are, a file read in
 * chunks, an fs2 stream as the stream it is, any other streamed body pulled in chunks of what its source has ready (`JoinedChunks`), its first chunk before the
 * head, so that a source failing at once is a 500.
 *
 * A response that `closes` the connection (a refusal) says so (`Connection: close`, which Ember obeys). What of a
 * request's body no one read is drained after its response (`Bodies.linger`, for `Refusals.LingerMillis` at most):
 * Ember closes a connection whose request body was left unread, and closing on bytes not read would reset the
 * connection under the response the client has not read yet; drained to its end, the body lets the connection serve
 * the next request.
 */
private[http4s] final class Responses[F[_]](using F: Async[F]):
  private val fs2Body = new Fs2Body[F]

  def of(view: Http4sRequest[F], r: ServerResponse, closes: Boolean): F[Response[F]] =
    val bodyless = (view.request.method eq H4Method.HEAD) || !ResponseRules.hasContentLength(r.status)
    val stream = r.stream
    if stream == null || bodyless then
      if stream != null then stream.abandon()
      F.pure(response(view, r, closes, bodyless, null))
    else
      stream match
        case chunks: ResponseStream.Chunks if !chunks.source.isInstanceOf[Fs2Source[?]] =>
          val reader = JoinedChunks[F](chunks.source, Responses.Joined)
          F.map(F.attempt(reader.next)) {
            case Left(e) =>
              Responses.log.error("A response body's source failed before the response started", e)
              chunks.source.cancel()
              val failed = ServerResponse.text(StatusCode.InternalServerError, "Internal Server Error")
              response(view, failed, closes, bodyless = false, null)
            case Right(first) =>
              val body = first.fold(Stream.empty)((chunk, _) => Stream.chunk(chunk) ++ reader.stream)
              response(view, r, closes, bodyless = false, body)
          }
        case other => F.pure(response(view, r, closes, bodyless = false, bodyOf(other)))

  /** The response, with `body` as its streamed body when there is one. */
  private def response(
      view: Http4sRequest[F],
      r: ServerResponse,
      closes: Boolean,
      bodyless: Boolean,
      streamed: Stream[F, Byte] | Null
  ): Response[F] =
    val status = Status.fromInt(r.status).getOrElse(Status.InternalServerError)
    val bytes = r.body
    val stream = r.stream
    val length: Long =
      if stream != null then stream.length
      else if bytes != null then bytes.length.toLong
      else 0L
    val declared = if ResponseRules.hasContentLength(r.status) && length >= 0 then length else -1L
    val body: Stream[F, Byte] =
      if bodyless then Stream.empty
      else if streamed != null then
        val expected = if declared >= 0 then declared else ownLength(r)
        if expected >= 0 && !stream.isInstanceOf[ResponseStream.File] then exactly(streamed.nn, expected)
        else streamed.nn
      else if bytes != null && bytes.length > 0 then Stream.chunk(Chunk.array(bytes))
      else Stream.empty
    // A streamed request body is let go once the response is sent: the response may stream from it (an echo)
    val source = view.source
    val released = if source == null then body else body.onFinalize(F.delay(source.nn.cancel()))
    val drain = view.drain
    val sent = if drain == null then released else released ++ Stream.exec(drain.nn)
    // Ember dates its HTTP/1.1 answers, not its HTTP/2 ones
    val dated = view.request.httpVersion == HttpVersion.`HTTP/2`
    val made = Response[F](status, HttpVersion.`HTTP/1.1`, Headers(headersOf(r, declared, closes, dated)), sent)
    if streamed == null then made else made.withAttribute(Responses.Streamed, ())

  private def headersOf(r: ServerResponse, length: Long, closes: Boolean, dated: Boolean): List[Header.Raw] =
    val headers = List.newBuilder[Header.Raw]
    if dated && !r.hasHeader("Date") then headers += Header.Raw(Responses.Date, DateField.now())
    var i = 0
    while i < r.headerCount do
      headers += Header.Raw(CIString(r.headerName(i)), r.headerValue(i))
      i += 1
    if length >= 0 then headers += Header.Raw(Responses.ContentLength, length.toString)
    if closes then headers += Responses.Close
    headers.result()

  /** The Content-Length the endpoint set itself, or -1. */
  private def ownLength(r: ServerResponse): Long =
    r.header("Content-Length").flatMap(_.trim.toLongOption).getOrElse(-1L)

  /**
   * A body sent with the length its endpoint declared: a source that ends short of it, or goes past it, fails the
   * response, and Ember closes the connection, which is all that tells the client the body is not whole.
   */
  private def exactly(body: Stream[F, Byte], length: Long): Stream[F, Byte] =
    def go(chunks: Stream[F, Chunk[Byte]], sent: Long): Pull[F, Byte, Unit] =
      chunks.pull.uncons1.flatMap {
        case None =>
          if sent == length then Pull.done
          else Pull.raiseError[F](IOException(s"the response body ended after $sent of its $length bytes"))
        case Some((chunk, rest)) =>
          val total = sent + chunk.size
          if total > length then Pull.raiseError[F](IOException(s"the response body is longer than its $length bytes"))
          else Pull.output(chunk) >> go(rest, total)
      }
    go(body.chunks, 0L).stream

  private def bodyOf(stream: ResponseStream): Stream[F, Byte] = stream match
    case file: ResponseStream.File =>
      // A chunk a DATA frame fills: what a stream whose client opens no window holds of its file
      Files.forAsync[F].readRange(
        FsPath.fromNioPath(file.path),
        Responses.Joined,
        file.offset,
        file.offset + file.length
      )
    case chunks: ResponseStream.Chunks =>
      val own = chunks.source match
        case fs2: Fs2Source[?] => fs2.takeStream()
        case _ => null
      if own != null then own.asInstanceOf[Stream[F, Byte]] else fs2Body.read(chunks.source)

private[http4s] object Responses:
  private val log = LoggerFactory.getLogger(classOf[Responses[?]])
  // HTTP/2's default largest frame: a joined chunk fills one DATA frame, or one TLS record
  private val Joined = 16_384
  val ContentLength: CIString = CIString("Content-Length")
  val Close: Header.Raw = Header.Raw(CIString("Connection"), "close")
  private val Date: CIString = CIString("Date")

  /** Marks a response whose body is streamed (a file, chunks), not bytes in memory. */
  val Streamed: org.typelevel.vault.Key[Unit] =
    org.typelevel.vault.Key.newKey[cats.effect.SyncIO, Unit].unsafeRunSync()
