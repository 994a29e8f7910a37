package rapier.server.internal

import rapier.*
import rapier.flow.DrainLoop
import rapier.model.Header
import rapier.server.spi.{BodyReceiver, BodySource, ServerRequest}

import java.nio.ByteBuffer
import java.nio.file.Path
import java.util.concurrent.Executor
import scala.util.control.NonFatal

/**
 * Reads a `multipart/form-data` body (RFC 7578, with the framing of RFC 2046 §5.1) as it arrives, chunk by chunk, and
 * splits it into its parts: a part kept in memory is copied once, into its array; a part that goes to a file is
 * written from the backend's chunk, on `blocking`, before the next chunk is pulled — so the body is never held whole,
 * and a client sends no faster than the disk takes its files. The parts' limits are checked as bytes arrive: a part
 * past its limit stops the reading at once.
 *
 * `done` gets the parts once the body has ended, or the failure that makes it unreadable (a `DecodeResult.Failure`
 * for a malformed body or a limit, a `Throwable` when the body itself could not be read); files written so far are
 * deleted at once on a failure, and otherwise once the request is answered, by `created`'s owner. What the files hold
 * is taken from the server's disk budget for uploads (`files`) as they are written.
 */
private[server] final class MultipartReader(
    source: BodySource,
    boundary: Array[Byte],
    limits: MultipartLimits,
    toDisk: (String, Option[String]) => Boolean,
    blocking: Executor,
    temporary: TempFiles,
    created: Path => Unit,
    done: Either[Throwable, Multipart | DecodeResult.Failure] => Unit
) extends DrainLoop,
      BodyReceiver,
      Runnable:
  import MultipartReader.*

  // The delimiter is CRLF "--" boundary; the body is read as if a CRLF came before it, so that a boundary on the
  // first line is found like any other, and what comes before it is a preamble.
  private val search = DelimiterSearch(Array[Byte]('\r', '\n', '-', '-') ++ boundary, initiallyMatched = 2)
  private var state = Preamble
  private var chunk: ByteBuffer | Null = null
  private var chunkStart = 0
  private var consumed = 0L // bytes of the chunks before this one
  private val skipped = PartContent.Skipped() // the preamble, transport padding and the epilogue
  private val headerBytes = new Array[Byte](limits.maxHeaderSize + 4)
  private var headerLength = 0
  private var count = 0
  private var head: PartHead | Null = null
  private var content: PartContent | Null = null
  private var inMemory = 0L
  private val parts = List.newBuilder[Part[PartData]]
  private val files = List.newBuilder[PartContent.OnDisk]
  private var over = false

  def start(): Unit = drain()

  // Each step continues the chunk in hand (after a file write) or pulls the next one.
  protected def step(): Unit =
    if !over then
      if chunk == null then source.pull(this) else advance()

  def onChunk(c: ByteBuffer): Unit =
    chunk = c
    chunkStart = c.position()
    drain()

  def onEnd(): Unit =
    if state == Epilogue then finish()
    else
      fail(DecodeResult.Malformed(state match
        case Preamble => "a multipart body starting with its boundary"
        case Headers => s"the headers of part $count, ended by an empty line"
        case Content => s"part $count closed by the boundary"
        case _ => "a line break after the boundary"))

  def onError(cause: Throwable): Unit = stop(Left(cause))

  // A file part is written from the chunk off the loop, and a pull or cancel always follows: the chunk is let go then
  override def revoke(): Boolean = false

  /** A file write, on the blocking executor: then the chunk (which the write read from) is continued. */
  def run(): Unit =
    val file = content.asInstanceOf[PartContent.OnDisk]
    val last = state != Content
    try
      file.flush(last)
      if last then endPart(file.data)
      drain()
    catch
      case NonFatal(e) =>
        source.cancel()
        stop(Left(e))

  /** Reads the chunk in hand as far as it goes, or until a file write must come first. */
  private def advance(): Unit =
    val buf = chunk.nn
    while buf.hasRemaining && !over do
      state match
        case Preamble | Content =>
          val found = search.scan(buf, if state == Content then content.nn else skipped)
          if !withinLimits() then return
          if found then
            val ended = state == Content
            state = AfterBoundary
            if ended then
              content match
                case file: PartContent.OnDisk =>
                  blocking.execute(this) // writes what is left, closes the file, then comes back here
                  return
                case memory: PartContent.InMemory =>
                  inMemory += memory.size
                  endPart(memory.data)
                case _ =>
        case AfterBoundary =>
          buf.get() match
            case '-' => state = SecondDash
            case ' ' | '\t' =>
              state = Padding
              skipped.size = 1
            case '\r' => state = LineFeed
            case _ => return malformedAfterBoundary(buf)
        case SecondDash =>
          if buf.get() == '-' then
            state = Epilogue
            skipped.size = 0
          else return malformedAfterBoundary(buf)
        case Padding =>
          buf.get() match
            case ' ' | '\t' =>
              skipped.size += 1
              if skipped.size > limits.maxHeaderSize then return malformedAfterBoundary(buf)
            case '\r' => state = LineFeed
            case _ => return malformedAfterBoundary(buf)
        case LineFeed =>
          if buf.get() != '\n' then return malformedAfterBoundary(buf)
          count += 1
          if count > limits.maxParts then return fail(DecodeResult.Error(s"at most ${limits.maxParts} parts"))
          state = Headers
          headerLength = 0
        case Headers => if readHeaders(buf) then startPart()
        case _ => // the epilogue, after the closing boundary: read and dropped, within the header limit
          skipped.write(buf, buf.position(), buf.limit())
          buf.position(buf.limit())
          if skipped.size > limits.maxHeaderSize then
            source.cancel()
            finish()
    if !over then
      consumed += buf.limit() - chunkStart
      chunk = null
      content match
        case file: PartContent.OnDisk if state == Content && file.hasQueued => blocking.execute(this)
        case _ => drain()

  /** Copies header bytes until the empty line that ends them; true when it has come. */
  private def readHeaders(buf: ByteBuffer): Boolean =
    while buf.hasRemaining do
      if headerLength == headerBytes.length then
        fail(DecodeResult.Error(s"part headers of at most ${limits.maxHeaderSize} bytes"))
        return false
      headerBytes(headerLength) = buf.get()
      headerLength += 1
      if headerBytes(headerLength - 1) == '\n' && (headerLength == 2 || endsWithEmptyLine) then return true
    false

  private def endsWithEmptyLine: Boolean =
    headerLength >= 4 && headerBytes(headerLength - 2) == '\r' && headerBytes(headerLength - 3) == '\n' &&
      headerBytes(headerLength - 4) == '\r'

  /** The part's headers have been read: where its content goes. */
  private def startPart(): Unit =
    // A part with no headers has just CRLF; otherwise the section ends with an empty line, not part of a header
    val length = if headerLength == 2 && headerBytes(0) == '\r' then 0 else headerLength - 4
    if length < 0 then return fail(DecodeResult.Malformed(s"the headers of part $count, ended by an empty line"))
    val headers = PartHeaders.parse(headerBytes, length) match
      case Some(h) => h
      case None => return fail(DecodeResult.Malformed(s"headers of the form 'Name: value' in part $count"))
    val disposition = headers.find(_.is("Content-Disposition")).map(h => PartHeaders.dispositionParams(h.value))
    val name = disposition.flatMap(_.get("name")) match
      case Some(n) => n
      case None => return fail(DecodeResult.Malformed(s"a Content-Disposition with a name in part $count"))
    val fileName = disposition.flatMap(_.get("filename"))
    head = PartHead(name, fileName, headers)
    content =
      if toDisk(name, fileName) then PartContent.OnDisk(temporary, created).tap(files += _)
      else PartContent.InMemory()
    state = Content

  private def endPart(data: PartData): Unit =
    val h = head.nn
    parts += Part(h.name, data, h.fileName, h.headers.find(_.is("Content-Type")).map(_.value), h.headers)
    content = null

  /** Whether the part being read (or the preamble) is still within its limits; if not, reading has stopped. */
  private def withinLimits(): Boolean =
    val failure: DecodeResult.Failure | Null = content match
      case null =>
        if skipped.size > limits.maxHeaderSize then
          DecodeResult.Malformed("a multipart body starting with its boundary")
        else null
      case part if part.size > limits.maxPartSize => DecodeResult.TooLarge(limits.maxPartSize)
      case memory: PartContent.InMemory if inMemory + memory.size > limits.maxInMemorySize =>
        DecodeResult.TooLarge(limits.maxInMemorySize)
      case _ => null
    if failure != null then fail(failure.nn)
    failure == null

  private def malformedAfterBoundary(buf: ByteBuffer): Unit =
    fail(
      DecodeResult.Malformed(s"a line break after the boundary, at byte ${consumed + buf.position() - chunkStart - 1}")
    )

  private def finish(): Unit = stop(Right(Multipart(parts.result())))

  /** Reading stops, with `failure` as the outcome. */
  private def fail(failure: DecodeResult.Failure): Unit =
    source.cancel()
    stop(Right(failure))

  private def stop(outcome: Either[Throwable, Multipart | DecodeResult.Failure]): Unit =
    if !over then
      over = true
      chunk = null
      outcome match
        case Right(_: Multipart) =>
        case _ =>
          files.result().foreach(_.delete())
      done(outcome)

private[server] object MultipartReader:
  private inline val Preamble = 0
  private inline val AfterBoundary = 1
  private inline val SecondDash = 2
  private inline val Padding = 3
  private inline val LineFeed = 4
  private inline val Headers = 5
  private inline val Content = 6
  private inline val Epilogue = 7

  /** What a part's headers say of it. */
  private final case class PartHead(name: String, fileName: Option[String], headers: List[Header])

  /** What a multipart body without a usable boundary is. */
  val NoBoundary: DecodeResult.Failure =
    DecodeResult.Malformed("a multipart/form-data Content-Type with a boundary parameter of 1 to 70 characters")

  /**
   * Splits a body already in memory, on the calling thread, file parts written there too: for a multipart variant of
   * a body of several representations, which is read whole before its `Content-Type` picks the variant.
   */
  def readWhole(
      request: ServerRequest,
      contentType: String | Null,
      bytes: Array[Byte],
      limits: MultipartLimits,
      toDisk: (String, Option[String]) => Boolean,
      files: TempFiles
  ): Multipart | DecodeResult.Failure =
    PartHeaders.boundaryOrNull(contentType) match
      case null => NoBoundary
      case boundary: Array[Byte] =>
        var outcome: Either[Throwable, Multipart | DecodeResult.Failure] | Null = null
        MultipartReader(BodySource.of(bytes), boundary, limits, toDisk, _.run(), files, request.keepFile, outcome = _)
          .start()
        outcome.nn.fold(throw _, identity)

  extension [A](a: A)
    private def tap(f: A => Unit): A =
      f(a); a
