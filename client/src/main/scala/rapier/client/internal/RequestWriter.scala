package rapier.client.internal

import rapier.*
import rapier.client.ClientException
import rapier.model.{CookieValueWithMeta as _, Header, PercentEncoding, QueryParams}
import rapier.server.internal.BodyPublisher
import rapier.server.spi.StreamWriter

import java.io.InputStream
import java.net.http.HttpRequest.{BodyPublisher as JdkBody, BodyPublishers}
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import java.nio.file.Path
import java.util.concurrent.Flow

/** A request as the inputs write it, before it becomes the JDK's `HttpRequest`. */
private[client] final class RequestParts:
  var method: String | Null = null
  val path: java.lang.StringBuilder = java.lang.StringBuilder()
  val query: java.lang.StringBuilder = java.lang.StringBuilder()
  val headers: java.util.ArrayList[String] = java.util.ArrayList[String]()
  val cookies: java.lang.StringBuilder = java.lang.StringBuilder()
  var body: JdkBody | Null = null
  // The effect (the call's F, as Any) that starts a stream body's producer, run before the request is sent
  var start: Any = null

  def header(name: String, value: String): Unit =
    headers.add(name)
    headers.add(value)

  def queryParam(name: String, value: String): Unit =
    query.append(if query.length == 0 then '?' else '&')
    query.append(PercentEncoding.encodeQueryComponent(name)).append('=')
    query.append(PercentEncoding.encodeQueryComponent(value))

  def segment(s: String): Unit = path.append('/').append(PercentEncoding.encodePathSegment(s))

  def cookie(name: String, value: String): Unit =
    if cookies.length > 0 then cookies.append("; ")
    cookies.append(name).append('=').append(value)

/**
 * Writes an endpoint's inputs into a request: the tree walked once per call, each value split among the inputs by
 * their arities (see [[Tuples]]). What a client can't send (a body only a server reads, an input computed from the
 * request) is refused when the client is made, by [[RequestWriter.check]].
 */
private[client] object RequestWriter:
  type Leaf = EndpointInput.Basic[?]

  def write(tree: IOTree[Leaf], value: Any, r: RequestParts): Unit = tree match
    case IOTree.Leaf(leaf, _) => leafOf(leaf, value, r)
    case IOTree.Empty => ()
    case IOTree.Mapped(inner, _, g) => write(inner, g(value), r)
    case IOTree.Sequence(parts, arities) =>
      val total = IOTree.total(arities)
      var offset = 0
      var ps = parts
      var as = arities
      while ps.nonEmpty do
        val arity = as.head
        val part =
          if arity == total then value
          else if arity == 0 then ()
          else
            val values = new Array[Any](arity)
            var i = 0
            while i < arity do
              values(i) = Tuples.element(value, total, offset + i)
              i += 1
            Tuples.combine(values, 0, arity)
        write(ps.head, part, r)
        offset += arity
        ps = ps.tail
        as = as.tail

  // A captured segment that would change the path it is put in (RFC 3986 §5.2.4): refused, not sent
  private def safe(input: String, segment: String): String =
    if segment == "." || segment == ".." then
      throw ClientException.InvalidInput(input, s"'$segment' would move the call to another path")
    else if segment.isEmpty then throw ClientException.InvalidInput(input, "an empty segment changes the path's shape")
    else segment

  private def leafOf(leaf: Leaf, v: Any, r: RequestParts): Unit = leaf match
    case EndpointInput.FixedMethod(m) => r.method = m.name
    case EndpointInput.FixedPath(s, _) => r.segment(s)
    case EndpointInput.PathCapture(name, codec, _, _) =>
      r.segment(safe(s"the path parameter $name", codec.asInstanceOf[Codec[String, Any]].encode(v)))
    case EndpointInput.PathsCapture(codec, _) =>
      codec.asInstanceOf[Codec[List[String], Any]].encode(v).foreach(s => r.segment(safe("the path's rest", s)))
    case EndpointInput.Query(name, codec, _) =>
      codec.asInstanceOf[Codec[List[String], Any]].encode(v).foreach(r.queryParam(name, _))
    case EndpointInput.AllQuery(codec, _) =>
      codec.asInstanceOf[Codec[QueryParams, Any]].encode(v).toList.foreach((n, x) => r.queryParam(n, x))
    case EndpointInput.Cookie(name, codec, _) =>
      codec.asInstanceOf[Codec[Option[String], Any]].encode(v).foreach(r.cookie(name, _))
    case EndpointInput.Auth(_, source, _) => leafOf(source, v, r)
    case EndpointInput.AuthAlternatives(alternatives, _) => alternative(alternatives, v, r)
    case _: EndpointInput.ExtractFromRequest[?] => ()
    case EndpointIO.Header(name, codec, _) =>
      codec.asInstanceOf[Codec[List[String], Any]].encode(v).foreach(r.header(name, _))
    case EndpointIO.FixedHeader(name, value, _) => r.header(name, value)
    case EndpointIO.AllHeaders(codec, _) =>
      codec.asInstanceOf[Codec[List[Header], Any]].encode(v).foreach(h => r.header(h.name, h.value))
    case b: EndpointIO.Body[?, ?] => body(b, v, r)
    case EndpointIO.OneOfBody(variants, _) => body(variants.head, v, r)

  // The credentials are one scheme's, told apart by type: the first whose codec takes the value writes it (a codec
  // fails on encoding, before anything is written)
  private def alternative(alternatives: List[EndpointInput.Auth[?]], v: Any, r: RequestParts): Unit =
    val written = alternatives.exists { a =>
      try
        leafOf(a, v, r)
        true
      catch case _: ClassCastException => false
    }
    if !written then
      throw IllegalArgumentException(s"credentials of none of the schemes ${alternatives.map(_.scheme.label)}")

  private def body(b: EndpointIO.Body[?, ?], v: Any, r: RequestParts): Unit =
    val raw = b.codec.asInstanceOf[Codec[Any, Any]].encode(v)
    val contentType = b.codec.mediaType.render
    b.raw match
      case RawBodyType.StringBody(charset) =>
        r.body = BodyPublishers.ofString(raw.asInstanceOf[String], charset)
        r.header("Content-Type", contentType)
      case RawBodyType.ByteArrayBody =>
        r.body = BodyPublishers.ofByteArray(raw.asInstanceOf[Array[Byte]])
        r.header("Content-Type", contentType)
      case RawBodyType.FileBody =>
        r.body = BodyPublishers.ofFile(raw.asInstanceOf[Path])
        r.header("Content-Type", contentType)
      case RawBodyType.MultipartBody(_, _) =>
        val boundary = MultipartWriter.boundary()
        r.body = MultipartWriter.publisher(raw.asInstanceOf[Multipart], boundary)
        r.header("Content-Type", s"multipart/form-data; boundary=$boundary")
      case RawBodyType.StreamBody(kind) =>
        r.body = kind match
          case StreamKind.Publisher => BodyPublishers.fromPublisher(raw.asInstanceOf[Flow.Publisher[ByteBuffer]])
          case StreamKind.Input => BodyPublishers.ofInputStream(() => raw.asInstanceOf[InputStream])
          case writer: StreamWriter[?] =>
            val started = writer.asInstanceOf[StreamWriter[Any]].write(raw)
            r.start = started.start
            BodyPublishers.fromPublisher(BodyPublisher(started.source))
          case other => throw IllegalArgumentException(s"a client can't send a body as ${other.name}")
        r.header("Content-Type", contentType)

  /** Why a client can't send this input tree, if it can't: checked once, when the client is made. */
  def check(tree: IOTree[Leaf]): Option[String] = tree.leaves.collectFirst {
    case EndpointIO.Body(RawBodyType.StreamBody(kind), _, _)
        if kind != StreamKind.Publisher && kind != StreamKind.Input && !kind.isInstanceOf[StreamWriter[?]] =>
      s"a body read as ${kind.name} is for servers: a client sends a Flow.Publisher, an InputStream or its effect's stream"
  }

/** A `multipart/form-data` body (RFC 7578): parts in memory sent as they are, parts on disk read as they are sent. */
private[client] object MultipartWriter:
  private val random = java.security.SecureRandom()

  def boundary(): String =
    val bytes = new Array[Byte](18)
    random.nextBytes(bytes)
    "rapier-" + java.util.Base64.getUrlEncoder.withoutPadding.encodeToString(bytes)

  def publisher(body: Multipart, boundary: String): JdkBody =
    val pieces = java.util.ArrayList[JdkBody]()
    def text(s: String): Unit = pieces.add(BodyPublishers.ofString(s, StandardCharsets.UTF_8))
    body.parts.foreach { part =>
      val head = java.lang.StringBuilder()
      head.append("--").append(boundary).append("\r\n")
      head.append("Content-Disposition: form-data; name=\"").append(quoted(part.name)).append('"')
      part.fileName.foreach(f => head.append("; filename=\"").append(quoted(f)).append('"'))
      head.append("\r\n")
      part.contentType.foreach(c => head.append("Content-Type: ").append(c).append("\r\n"))
      part.headers
        .filterNot(h => h.is("Content-Disposition") || h.is("Content-Type"))
        .foreach(h => head.append(h.name).append(": ").append(h.value).append("\r\n"))
      head.append("\r\n")
      text(head.toString)
      part.body match
        case PartData.InMemory(bytes) => pieces.add(BodyPublishers.ofByteArray(bytes))
        case PartData.OnDisk(file, _) => pieces.add(BodyPublishers.ofFile(file))
      text("\r\n")
    }
    text(s"--$boundary--\r\n")
    BodyPublishers.concat(pieces.toArray(new Array[JdkBody](0))*)

  // RFC 7578 §4.2: a name's quotes and line breaks are percent-encoded
  private def quoted(s: String): String = s.replace("\"", "%22").replace("\r", "%0D").replace("\n", "%0A")
