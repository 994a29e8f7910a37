package rapier.client.internal

import rapier.*
import rapier.client.ClientException
import rapier.model.{CookieValueWithMeta, Header, MediaType, StatusCode, Text}
import rapier.server.internal.StreamBodyReader
import rapier.server.spi.BodySource

import java.net.http.HttpResponse
import java.net.http.HttpResponse.{BodySubscriber, BodySubscribers, ResponseInfo}
import java.nio.charset.{Charset, StandardCharsets}
import java.nio.file.Files
import scala.jdk.CollectionConverters.*

/**
 * Reads a response as an endpoint's output, its error output, or a problem a Rapier server answered with, decided
 * by the status and `Content-Type` once they arrive — before the body, which is read as the side chosen needs it: in
 * memory, into a file, or as a stream the call's caller reads. A body read whole is read up to `limit` bytes: past it
 * (or declared past it) the call fails with [[ClientException.ResponseTooLarge]].
 */
private[client] final class ResponseReader(output: EndpointOutput[?], errorOutput: EndpointOutput[?], limit: Long):
  import ResponseReader.*

  private val outputTree = IOTree.ofOutput(output)
  private val errorTree = IOTree.ofOutput(errorOutput)
  private val outputStatuses = statuses(outputTree)
  private val errorStatuses = statuses(errorTree)
  private val errorReadsProblems = bodies(errorTree).exists(_.codec.mediaType.matchesContentType(ProblemJson))

  /** Why a client can't read these outputs, if it can't: checked once, when the client is made. */
  def check: Option[String] =
    def unreadable(tree: IOTree[EndpointOutput[?]]): Option[String] = tree.leaves.collectFirst {
      case _: EndpointOutput.WebSocketBody[?, ?, ?] if tree ne outputTree => "a WebSocket in the error output"
      case EndpointOutput.OneOf(variants) if variants.exists(v => unreadable(IOTree.ofOutput(v.output)).isDefined) =>
        variants.flatMap(v => unreadable(IOTree.ofOutput(v.output))).head
    }.orElse(bodies(tree).collectFirst {
      case EndpointIO.Body(_: RawBodyType.MultipartBody, _, _) => "a multipart body: the client doesn't read one"
      case EndpointIO.Body(RawBodyType.StreamBody(StreamKind.Chunks), _, _) =>
        "a body as BodyChunks, which only a server reads"
    })
    unreadable(outputTree).orElse(unreadable(errorTree))

  /**
   * The JDK's body handler for one call: the side and body reader chosen once the status and headers are in. `refused`
   * is told when the body is refused as too large: the JDK may fail the call with its own "stream cancelled" first.
   */
  def handler(refused: java.util.concurrent.atomic.AtomicReference[ClientException | Null])
      : HttpResponse.BodyHandler[Received] = info =>
    val status = info.statusCode
    val contentType = info.headers.firstValue("Content-Type").orElse("")
    val side =
      if status >= 400 && MediaType.parse(contentType).exists(_.matchesContentType(ProblemJson)) && !errorReadsProblems
      then Side.Problem
      else if errorStatuses.has(status) && !outputStatuses.has(status) then Side.Error
      else if outputStatuses.has(status) || status < 400 then Side.Output
      else Side.Error
    val tree = side match
      case Side.Output => outputTree
      case Side.Error => errorTree
      case Side.Problem => IOTree.Empty
    val declared = info.headers.firstValueAsLong("Content-Length").orElse(-1L)
    def whole(s: BodySubscriber[Any]): BodySubscriber[Any] = Limited(s, limit, declared, status, refused)
    val subscriber: BodySubscriber[Any] =
      if side == Side.Problem then
        whole(BodySubscribers.mapping(
          BodySubscribers.ofString(charsetOf(contentType, StandardCharsets.UTF_8)),
          identity
        ))
      else
        bodyOf(tree, status, contentType) match
          case Some(b @ EndpointIO.Body(_: RawBodyType.StreamBody[?], _, _)) => bodySubscriber(b, info, contentType)
          case Some(b) => whole(bodySubscriber(b, info, contentType))
          case None => BodySubscribers.mapping(BodySubscribers.discarding(), _ => ())
    BodySubscribers.mapping(subscriber, raw => Received(side, tree, raw))

  /** The call's result once the response is in: `Right(output)`, `Left(error)`, or why it is neither. */
  def result(response: HttpResponse[Received]): Either[ClientException, Either[Any, Any]] =
    val received = response.body
    val status = response.statusCode
    received.side match
      case Side.Problem =>
        val headers = headerList(response)
        Left(ClientException.ProblemAnswer(ProblemReader.read(status, received.raw.asInstanceOf[String], headers)))
      case side =>
        val view = ResponseView(status, response)
        decode(received.tree, view, received.raw) match
          case DecodeResult.Value(v) => Right(if side == Side.Output then Right(v) else Left(v))
          case failure: DecodeResult.Failure =>
            val which = if side == Side.Output then "output" else "error output"
            Left(ClientException.UndecodableResponse(status, s"as the endpoint's $which: ${failure.describe}"))

  private def decode(tree: IOTree[EndpointOutput[?]], r: ResponseView, raw: Any): DecodeResult[Any] = tree match
    case IOTree.Leaf(leaf, _) => leafOf(leaf, r, raw)
    case IOTree.Empty => DecodeResult.Value(())
    case IOTree.Mapped(inner, f, _) => decode(inner, r, raw).flatMap(f)
    case IOTree.Sequence(parts, arities) =>
      val total = IOTree.total(arities)
      val values = new Array[Any](total)
      var offset = 0
      var ps = parts
      var as = arities
      var failed: DecodeResult.Failure | Null = null
      while failed == null && ps.nonEmpty do
        val arity = as.head
        decode(ps.head, r, raw) match
          case DecodeResult.Value(v) =>
            var i = 0
            while i < arity do
              values(offset + i) = Tuples.element(v, arity, i)
              i += 1
          case f: DecodeResult.Failure => failed = f
        offset += arity
        ps = ps.tail
        as = as.tail
      if failed != null then failed.nn else DecodeResult.Value(Tuples.combine(values, 0, total))

  private def leafOf(leaf: EndpointOutput[?], r: ResponseView, raw: Any): DecodeResult[Any] = leaf match
    case _: EndpointOutput.FixedStatusCode => DecodeResult.Value(())
    case _: EndpointOutput.StatusCodeValue => DecodeResult.Value(StatusCode(r.status))
    case _: EndpointIO.FixedHeader => DecodeResult.Value(())
    case EndpointIO.Header(name, codec, _) => codec.asInstanceOf[Codec[List[String], Any]].decode(r.values(name))
    case EndpointIO.AllHeaders(codec, _) => codec.asInstanceOf[Codec[List[Header], Any]].decode(r.all)
    case EndpointOutput.SetCookie(name, codec, _) =>
      val cookie = r.values("Set-Cookie").iterator.map(SetCookies.parseOrNull).collectFirst {
        case (n, c) if n == name => c
      }
      codec.asInstanceOf[Codec[Option[CookieValueWithMeta], Any]].decode(cookie)
    case b: EndpointIO.Body[?, ?] => b.codec.asInstanceOf[Codec[Any, Any]].decode(raw)
    case EndpointIO.OneOfBody(variants, _) =>
      chosenBody(variants, r.contentType).codec.asInstanceOf[Codec[Any, Any]].decode(raw)
    case EndpointOutput.OneOf(variants) =>
      candidates(variants, r.status) match
        case Nil => DecodeResult.Mismatch(s"one of the statuses ${variantStatuses(variants)}, not ${r.status}")
        case first :: others =>
          val firstResult = decode(IOTree.ofOutput(first.output), r, raw)
          firstResult match
            case _: DecodeResult.Value[?] => firstResult
            case _ =>
              // Variants of one status tried in turn, where they read the body alike
              others.iterator
                .filter(v => sameBody(first, v))
                .map(v => decode(IOTree.ofOutput(v.output), r, raw))
                .collectFirst { case v: DecodeResult.Value[?] => v }
                .getOrElse(firstResult)
    case EndpointIO.Empty => DecodeResult.Value(())
    case other => DecodeResult.Mismatch(s"an output a client can't read: $other")

private[client] object ResponseReader:
  private val ProblemJson = "application/problem+json"

  private[client] enum Side:
    case Output, Error, Problem

  /** What the body handler decided, and the body as that side reads it. */
  private[client] final class Received(val side: Side, val tree: IOTree[EndpointOutput[?]], val raw: Any)

  /** The statuses an output tree names itself. */
  private final class Statuses(codes: Set[Int]):
    def has(status: Int): Boolean = codes.contains(status)

  private def statuses(tree: IOTree[EndpointOutput[?]]): Statuses =
    val codes = tree.leaves.flatMap {
      case EndpointOutput.FixedStatusCode(code, _) => List(code.code)
      case EndpointOutput.OneOf(variants) => variants.flatMap(_.statusCode.map(_.code))
      case _ => Nil
    }
    Statuses(codes.toSet)

  private def variantStatuses(variants: List[OneOfVariant[?]]): String =
    variants.flatMap(_.statusCode.map(_.code)).distinct.mkString(", ")

  // The variants a status may be: those that name it, then those that name none
  private def candidates(variants: List[OneOfVariant[?]], status: Int): List[OneOfVariant[?]] =
    variants.filter(_.statusCode.exists(_.code == status)) ++ variants.filter(_.statusCode.isEmpty)

  private def sameBody(a: OneOfVariant[?], b: OneOfVariant[?]): Boolean =
    bodies(IOTree.ofOutput(a.output)).map(_.raw) == bodies(IOTree.ofOutput(b.output)).map(_.raw)

  /** Every body an output tree may write, through its variants. */
  private def bodies(tree: IOTree[EndpointOutput[?]]): List[EndpointIO.Body[?, ?]] = tree.leaves.flatMap {
    case b: EndpointIO.Body[?, ?] => List(b)
    case EndpointIO.OneOfBody(variants, _) => variants
    case EndpointOutput.OneOf(variants) => variants.flatMap(v => bodies(IOTree.ofOutput(v.output)))
    case _ => Nil
  }

  /** The body the response is read by: in the variant its status picks, the representation its type names. */
  private def bodyOf(tree: IOTree[EndpointOutput[?]], status: Int, contentType: String): Option[EndpointIO.Body[?, ?]] =
    tree.leaves.iterator.flatMap {
      case b: EndpointIO.Body[?, ?] => Some(b)
      case EndpointIO.OneOfBody(variants, _) => Some(chosenBody(variants, contentType))
      case EndpointOutput.OneOf(variants) =>
        candidates(variants, status).headOption.flatMap(v => bodyOf(IOTree.ofOutput(v.output), status, contentType))
      case _ => None
    }.nextOption()

  private def chosenBody(variants: List[EndpointIO.Body[?, ?]], contentType: String): EndpointIO.Body[?, ?] =
    variants.find(_.codec.mediaType.matchesContentType(contentType)).getOrElse(variants.head)

  // The charset the response names, `default` when it names none or one the JVM doesn't know
  private def charsetOf(contentType: String, default: Charset): Charset =
    Text.charsetOf(contentType, default) match
      case null => default
      case named: Charset => named

  private def bodySubscriber(b: EndpointIO.Body[?, ?], info: ResponseInfo, contentType: String): BodySubscriber[Any] =
    b.raw match
      case RawBodyType.StringBody(charset) =>
        BodySubscribers.mapping(BodySubscribers.ofString(charsetOf(contentType, charset)), identity)
      case RawBodyType.ByteArrayBody => BodySubscribers.mapping(BodySubscribers.ofByteArray(), identity)
      case RawBodyType.FileBody =>
        val file = Files.createTempFile("rapier-response-", ".bin")
        BodySubscribers.mapping(BodySubscribers.ofFile(file), identity)
      case RawBodyType.StreamBody(kind) =>
        val length = info.headers.firstValueAsLong("Content-Length").orElse(-1L)
        val source = ResponseSource(length)
        val reader = StreamBodyReader.reader(kind)
        BodySubscribers.mapping[BodySource, Any](source, s => reader(s))
      case RawBodyType.MultipartBody(_, _) =>
        BodySubscribers.replacing(null)

  private def headerList(response: HttpResponse[?]): List[Header] =
    response.headers.map.asScala.toList.flatMap((n, vs) => vs.asScala.map(Header(n, _)))

  /** The parts of a response the outputs other than the body read. */
  private final class ResponseView(val status: Int, response: HttpResponse[?]):
    def values(name: String): List[String] = response.headers.allValues(name).asScala.toList
    def all: List[Header] = headerList(response)
    def contentType: String = response.headers.firstValue("Content-Type").orElse("")

/**
 * A body read whole, up to `limit` bytes: one declared longer is refused at once, one that grows longer when it does;
 * either way the response is read no further and the call fails with [[ClientException.ResponseTooLarge]].
 */
private final class Limited[T](
    inner: BodySubscriber[T],
    limit: Long,
    declared: Long,
    status: Int,
    told: java.util.concurrent.atomic.AtomicReference[ClientException | Null]
) extends BodySubscriber[T]:
  private var subscription: java.util.concurrent.Flow.Subscription | Null = null
  private var received = 0L
  private var refused = false

  def getBody: java.util.concurrent.CompletionStage[T] = inner.getBody

  def onSubscribe(s: java.util.concurrent.Flow.Subscription): Unit =
    subscription = s
    inner.onSubscribe(s)
    if declared > limit then refuse()

  def onNext(items: java.util.List[java.nio.ByteBuffer]): Unit =
    if !refused then
      var i = 0
      while i < items.size do
        received += items.get(i).remaining
        i += 1
      if received > limit then refuse() else inner.onNext(items)

  def onError(e: Throwable): Unit = if !refused then inner.onError(e)
  def onComplete(): Unit = if !refused then inner.onComplete()

  // The body fails first, then the exchange is let go: cancelled first, the JDK would fail the call with its own
  private def refuse(): Unit =
    refused = true
    val tooLarge = ClientException.ResponseTooLarge(status, limit)
    told.set(tooLarge)
    inner.onError(tooLarge)
    subscription.nn.cancel()

/** `Set-Cookie` values (RFC 6265 §5.2) read back into the cookie's name and value with its attributes. */
private[client] object SetCookies:
  def parseOrNull(header: String): (String, CookieValueWithMeta) | Null =
    val pieces = header.split(';').map(_.trim)
    val eq = pieces(0).indexOf('=')
    if eq <= 0 then null
    else
      val name = pieces(0).substring(0, eq).trim
      val value = pieces(0).substring(eq + 1).trim.stripPrefix("\"").stripSuffix("\"")
      var cookie =
        try CookieValueWithMeta(value)
        catch case _: IllegalArgumentException => return null
      pieces.iterator.drop(1).foreach { attribute =>
        val (key, v) = attribute.indexOf('=') match
          case -1 => (attribute, "")
          case i => (attribute.substring(0, i).trim, attribute.substring(i + 1).trim)
        key.toLowerCase match
          case "expires" =>
            scala.util.Try(java.time.ZonedDateTime.parse(v, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME))
              .foreach(t => cookie = cookie.copy(expires = Some(t.toInstant)))
          case "max-age" => v.toLongOption.foreach(a => cookie = cookie.copy(maxAge = Some(a)))
          case "domain" => cookie = cookie.copy(domain = Some(v))
          case "path" => cookie = cookie.copy(path = Some(v))
          case "secure" => cookie = cookie.copy(secure = true)
          case "httponly" => cookie = cookie.copy(httpOnly = true)
          case "samesite" =>
            rapier.model.SameSite.values.find(_.toString.equalsIgnoreCase(v)).foreach(s =>
              cookie = cookie.copy(sameSite = Some(s))
            )
          case _ => ()
      }
      (name, cookie)
