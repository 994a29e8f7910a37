package rapier.server.internal

import rapier.*
import rapier.codec.SingleValue
import rapier.model.{CookieValueWithMeta, HeaderNames, MediaRange, Tokens}
import rapier.server.ServerResponse

import rapier.server.spi.{ResponseStream, StreamWriter, WebSocketRunner, WebSocketUpgrade}

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import java.util.concurrent.{Executor, Flow}

/**
 * The outputs of an endpoint (or its errors), compiled when the server starts: a writer per basic output, each
 * taking its element of the output value by position, so writing a response splits no tuple.
 */
private[server] final class OutputPlan private (writers: Array[OutputPlan.Writer], arity: Int):

  /** How many headers the response will usually carry: the response's header array is allocated at this size. */
  val expectedHeaders: Int = writers.foldLeft(0)(_ + _.headersAdded)

  /** The body writers of this plan, including those under mappings (not those of `oneOf` variants). */
  private[internal] val bodies: List[OutputPlan.Body] = writers.toList.flatMap {
    case b: OutputPlan.Body => b :: Nil
    case m: OutputPlan.Mapped => m.inner.bodies
    case _ => Nil
  }

  // When a body's own headers are the only ones, every response shares one precomputed header array.
  private val presetHeaders: Array[String] | Null =
    if bodies.size == 1 && expectedHeaders == bodies.head.headersAdded then bodies.head.headers else null

  /**
   * The media types of the first body with several representations, if the plan has one: the endpoint then parses
   * `Accept`, and answers 406 when none of these is acceptable.
   */
  val offers: IndexedSeq[rapier.model.MediaType] | Null = writers.iterator.flatMap {
    case n: OutputPlan.NegotiatedBody => Some(n.offers)
    case m: OutputPlan.Mapped => Option(m.inner.offers)
    case _ => None
  }.nextOption().orNull

  /** The WebSocket this plan upgrades to, if it is one's (see [[OutputPlan.WebSocket]]). */
  val webSocket: EndpointOutput.WebSocketBody[?, ?, ?] | Null = writers.iterator.flatMap {
    case w: OutputPlan.WebSocket => Some(w.output)
    case m: OutputPlan.Mapped => Option(m.inner.webSocket)
    case _ => None
  }.nextOption().orNull

  /** Whether writing may depend on `Accept`: a body with several representations, here or in a `oneOf` variant. */
  val negotiates: Boolean = anyWriter {
    case _: OutputPlan.NegotiatedBody => true
    case _ => false
  }

  /**
   * Whether a body here (or in a variant) is written from a stream of an effect module's, which must be started in
   * the endpoint's effect once the response is encoded (see [[StreamWriter]]).
   */
  val startsStreams: Boolean = anyWriter {
    case b: OutputPlan.Body => b.startsStream
    case w: OutputPlan.WebSocket => w.runner != null
    case _ => false
  }

  /** Whether a body here (or in a variant) may be a file, whose ranges a request may ask for (see [[FileRanges]]). */
  val sendsFiles: Boolean = anyWriter {
    case b: OutputPlan.Body => b.sendsFile
    case _ => false
  }

  /** Whether a writer here, under a mapping, in a `oneOf` variant or among a body's representations satisfies `p`. */
  private def anyWriter(p: OutputPlan.Writer => Boolean): Boolean = writers.exists {
    case m: OutputPlan.Mapped => m.inner.anyWriter(p)
    case o: OutputPlan.OneOf => o.variants.exists(_.plan.anyWriter(p))
    case n: OutputPlan.NegotiatedBody => p(n) || n.variants.exists(p)
    case w => p(w)
  }

  /** A new response for this plan to write into. */
  def newResponse(): ServerResponse =
    if presetHeaders != null then ServerResponse.sharing(0, presetHeaders.nn)
    else ServerResponse.empty(0, expectedHeaders)

  /** Writes every output of `value` into `response`. */
  def write(value: Any, response: ServerResponse, accept: List[MediaRange] = Nil): Unit =
    var i = 0
    while i < writers.length do
      val w = writers(i)
      w.write(w.element(value, arity), response, accept)
      i += 1

private[server] object OutputPlan:
  /**
   * The file a response sends, read as the response is made, so that a missing file is the logic's failure (500)
   * before anything is sent: its length as the stream, and its validators (`ETag`, `Last-Modified`) unless the
   * endpoint set its own. On the default file system through `File.length` and `lastModified`, which allocate none of
   * the attribute objects `Files.readAttributes` does (about 150 bytes a response); each says 0 of a missing file,
   * which `exists` then tells apart.
   */
  def sendFile(path: java.nio.file.Path, r: ServerResponse): Unit =
    var size = 0L
    var modified = 0L
    if path.getFileSystem ne java.nio.file.FileSystems.getDefault then
      val attributes = java.nio.file.Files.readAttributes(path, classOf[java.nio.file.attribute.BasicFileAttributes])
      size = attributes.size
      modified = attributes.lastModifiedTime.toMillis
    else
      val file = path.toFile
      size = file.length
      modified = file.lastModified
      if modified == 0L && !file.exists then throw java.nio.file.NoSuchFileException(path.toString)
    r.setStream(ResponseStream.File(path, 0L, size))
    val time = java.time.Instant.ofEpochMilli(modified)
    if !r.hasHeader(HeaderNames.ETag) then
      r.addHeader(HeaderNames.ETag, rapier.server.files.DirectorySource.etagOf(size, time))
    if !r.hasHeader(HeaderNames.LastModified) then r.addHeader(HeaderNames.LastModified, lastModified(modified))

  // The last date written, kept: a file served again and again has one time (formatting one costs a microsecond)
  @volatile private var lastDate = (0L, "")
  private def lastModified(millis: Long): String =
    val (kept, date) = lastDate
    if kept == millis / 1000 && date.nonEmpty then date
    else
      val made = rapier.model.HttpDate.format(java.time.Instant.ofEpochMilli(millis))
      lastDate = (millis / 1000, made)
      made

  /** Writes one basic output, from its element of the output value (`offset`, `width` values wide). */
  abstract class Writer(offset: Int, width: Int):
    /** How many headers the writer usually adds. */
    def headersAdded: Int = 0
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit

    final def element(value: Any, arity: Int): Any =
      if width == 1 then Tuples.element(value, arity, offset)
      else if width == 0 then ()
      else
        val values = Array.tabulate[Any](width)(j => Tuples.element(value, arity, offset + j))
        Tuples.combine(values, 0, width)

  /**
   * A 101 to a WebSocket: the relay of the logic's pipe, which the backend starts once the 101 is written. An effect
   * module's pipe ([[WebSocketRunner]]) is made ready in the endpoint's effect first, as a stream body is.
   */
  final class WebSocket(offset: Int, val output: EndpointOutput.WebSocketBody[?, ?, ?]) extends Writer(offset, 1):
    val runner: WebSocketRunner[Any] | Null = output.kind match
      case WebSocketKind.Publishers => null
      case runner: WebSocketRunner[?] => runner.asInstanceOf[WebSocketRunner[Any]]
      case other => throw IllegalArgumentException(s"a WebSocket whose logic is a ${other.name} can't be run here")
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      r.setStatus(101)
      if runner == null then r.setWebSocket(WebSocketUpgrade(output, PublisherRelay(output, v)))
      else
        val started = runner.nn.relay(output, v)
        r.setWebSocket(WebSocketUpgrade(output, started.relay))
        r.streamStart = started.start

  final class FixedStatus(code: Int) extends Writer(0, 0):
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit = r.setStatus(code)

  final class StatusValue(offset: Int) extends Writer(offset, 1):
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit = r.setStatus(v.asInstanceOf[Int])

  final class FixedHeader(name: String, value: String) extends Writer(0, 0):
    override def headersAdded = 1
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit = header(r, name, value)

  final class HeaderValue(offset: Int, name: String, codec: Codec[List[String], Any]) extends Writer(offset, 1):
    override def headersAdded = 1
    private val single: Codec[String, Any] | Null = codec match
      case SingleValue(inner) => inner.asInstanceOf[Codec[String, Any]]
      case _ => null
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      if single != null then header(r, name, single.nn.encode(v))
      else codec.encode(v).foreach(header(r, name, _))

  final class AllHeaders(offset: Int, codec: Codec[List[rapier.model.Header], Any]) extends Writer(offset, 1):
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      codec.encode(v).foreach(h => header(r, h.name, h.value))

  final class SetCookie(offset: Int, name: String, codec: Codec[Option[CookieValueWithMeta], Any])
      extends Writer(offset, 1):
    override def headersAdded = 1
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      codec.encode(v).foreach(c => r.addHeader(HeaderNames.SetCookie, c.render(name)))

  final class Body(offset: Int, raw: RawBodyType[?], codec: Codec[Any, Any], blocking: Executor)
      extends Writer(offset, 1):
    val sendsFile: Boolean = raw == RawBodyType.FileBody
    override def headersAdded: Int = if sendsFile then 2 else 1
    // Computed once: the Content-Type of every response this body writes.
    val contentType: String = raw match
      case RawBodyType.StringBody(charset) if codec.mediaType.charset.isEmpty =>
        codec.mediaType.charset(charset).render
      case _ => codec.mediaType.render

    /** The headers of every response this body writes: its `Content-Type`, and a file's `Accept-Ranges`. */
    val headers: Array[String] =
      if sendsFile then Array(HeaderNames.ContentType, contentType, HeaderNames.AcceptRanges, "bytes")
      else Array(HeaderNames.ContentType, contentType)
    val startsStream: Boolean = raw match
      case RawBodyType.StreamBody(_: StreamWriter[?]) => true
      case _ => false
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      raw match
        case RawBodyType.ByteArrayBody => r.setBody(codec.encode(v).asInstanceOf[Array[Byte]])
        case RawBodyType.StringBody(charset) =>
          val s = codec.encode(v).asInstanceOf[String]
          r.setBody(if charset == StandardCharsets.UTF_8 then s.getBytes(StandardCharsets.UTF_8)
          else s.getBytes(charset))
        case RawBodyType.StreamBody(StreamKind.Publisher) =>
          val publisher = codec.encode(v).asInstanceOf[Flow.Publisher[? <: ByteBuffer]]
          r.setStream(ResponseStream.Chunks(PublisherSource(publisher, -1L), -1L))
        case RawBodyType.StreamBody(StreamKind.Input) =>
          val in = codec.encode(v).asInstanceOf[java.io.InputStream]
          r.setStream(ResponseStream.Chunks(InputStreamSource(in, -1L, blocking), -1L))
        case RawBodyType.FileBody =>
          OutputPlan.sendFile(codec.encode(v).asInstanceOf[java.nio.file.Path], r)
        case RawBodyType.StreamBody(writer: StreamWriter[?]) =>
          val started = writer.asInstanceOf[StreamWriter[Any]].write(codec.encode(v))
          r.setStream(ResponseStream.Chunks(started.source, -1L))
          r.streamStart = started.start
        case RawBodyType.StreamBody(kind) =>
          throw IllegalStateException(s"no writer for a response body of ${kind.name}")
        case _: RawBodyType.MultipartBody => throw IllegalStateException("multipart bodies are not written")
      if !r.hasHeader(HeaderNames.ContentType) then r.addHeader(HeaderNames.ContentType, contentType)
      if sendsFile && !r.hasHeader(HeaderNames.AcceptRanges) then r.addHeader(HeaderNames.AcceptRanges, "bytes")

  /** One body in several representations: the one the response's `Accept` ranges prefer, else the first. */
  final class NegotiatedBody(offset: Int, val variants: Array[Body], val offers: IndexedSeq[rapier.model.MediaType])
      extends Writer(offset, 1):
    override def headersAdded = 1
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      val chosen = rapier.model.Accept.choose(accept, offers)
      variants(if chosen < 0 then 0 else chosen).write(v, r, accept)

  final class Variant(val appliesTo: Any => Boolean, val status: Int, val plan: OutputPlan)

  final class OneOf(offset: Int, val variants: Array[Variant]) extends Writer(offset, 1):
    override def headersAdded = 1
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit =
      var i = 0
      while i < variants.length do
        val variant = variants(i)
        if variant.appliesTo(v) then
          if variant.status >= 0 then r.setStatus(variant.status)
          variant.plan.write(v, r, accept)
          return
        i += 1
      throw IllegalStateException(s"no oneOf variant applies to a value of ${v.getClass.getName}")

  final class Mapped(offset: Int, width: Int, g: Any => Any, val inner: OutputPlan) extends Writer(offset, width):
    override def headersAdded = inner.expectedHeaders
    def write(v: Any, r: ServerResponse, accept: List[MediaRange]): Unit = inner.write(g(v), r, accept)

  /**
   * Adds a header; a header an output sets explicitly replaces the Content-Type a body would set. Values with CR,
   * LF or other control characters are refused: writing them would let a value inject headers.
   */
  private def header(r: ServerResponse, name: String, value: String): Unit =
    if !Tokens.isFieldValue(value) then
      throw IllegalArgumentException(s"invalid characters in the value of header $name")
    if name.equalsIgnoreCase(HeaderNames.ContentType) then r.setHeader(name, value) else r.addHeader(name, value)

  /** Compiles the outputs; `blocking` runs what may block (reading an `InputStream` body). */
  def compile(output: EndpointOutput[?], blocking: Executor): OutputPlan = compile(IOTree.ofOutput(output), blocking)

  private def compile(tree: IOTree[EndpointOutput[?]], blocking: Executor): OutputPlan =
    val writers = List.newBuilder[Writer]
    def walk(t: IOTree[EndpointOutput[?]], offset: Int, width: Int): Unit = t match
      case IOTree.Sequence(parts, arities) =>
        var at = offset
        parts.zip(arities).foreach { (part, n) =>
          walk(part, at, n)
          at += n
        }
      case IOTree.Mapped(inner, _, g) => writers += Mapped(offset, width, g, compile(inner, blocking))
      case IOTree.Empty => ()
      case IOTree.Leaf(leaf, _) => writers ++= writer(leaf, offset, blocking)
    walk(tree, 0, tree.arity)
    new OutputPlan(writers.result().toArray, tree.arity)

  /** The writer of one basic output (none for the empty one) whose value is at `offset`. */
  private def writer(output: EndpointOutput[?], offset: Int, blocking: Executor): Option[Writer] = output match
    case EndpointOutput.FixedStatusCode(code, _) => Some(FixedStatus(code.code))
    case EndpointOutput.StatusCodeValue(_) => Some(StatusValue(offset))
    case ws: EndpointOutput.WebSocketBody[?, ?, ?] => Some(WebSocket(offset, ws))
    case EndpointIO.FixedHeader(name, value, _) => Some(FixedHeader(name, value))
    case EndpointIO.Header(name, codec, _) =>
      Some(HeaderValue(offset, name, codec.asInstanceOf[Codec[List[String], Any]]))
    case EndpointIO.AllHeaders(codec, _) =>
      Some(AllHeaders(offset, codec.asInstanceOf[Codec[List[rapier.model.Header], Any]]))
    case EndpointOutput.SetCookie(name, codec, _) =>
      Some(SetCookie(offset, name, codec.asInstanceOf[Codec[Option[CookieValueWithMeta], Any]]))
    case EndpointIO.Body(_: RawBodyType.MultipartBody, _, _) =>
      throw IllegalArgumentException("a multipart body can be read from requests, not written to responses")
    case EndpointIO.Body(RawBodyType.StreamBody(kind), _, _)
        if kind != StreamKind.Publisher && kind != StreamKind.Input && !kind.isInstanceOf[StreamWriter[?]] =>
      throw IllegalArgumentException(s"a response body can't be written from a ${kind.name} by this interpreter")
    case EndpointIO.Body(raw, codec, _) => Some(Body(offset, raw, codec.asInstanceOf[Codec[Any, Any]], blocking))
    case EndpointIO.OneOfBody(variants, _) =>
      val bodies = variants.map(b => Body(offset, b.raw, b.codec.asInstanceOf[Codec[Any, Any]], blocking)).toArray
      Some(NegotiatedBody(offset, bodies, variants.map(_.codec.mediaType).toIndexedSeq))
    case EndpointOutput.OneOf(variants) =>
      Some(
        OneOf(
          offset,
          variants
            .map(v => Variant(v.appliesTo, v.statusCode.fold(-1)(_.code), compile(IOTree.ofOutput(v.output), blocking)))
            .toArray
        )
      )
    case _ => None
