package rapier.server.internal

import rapier.*
import rapier.server.interceptor.{InputFailure, InputRef, InputSource}

/**
 * The inputs of an endpoint, compiled when the server starts: a decoder per basic input, and how their values
 * assemble into the endpoint's input value (tuples, mappings).
 *
 * Decoding is split around the body, which is read only when everything else decoded: `decodeHead`, then
 * `decodeBody` or `assemble`. Values go into a slot array, except for the shapes most endpoints have — no value, or
 * a single input — which need none.
 */
private[server] final class InputPlan private (
    leaves: Array[LeafDecoder | Null],
    body: BodyReading | Null,
    stream: StreamBodyReader | Null,
    bodySlot: Int,
    root: InputPlan.Node
):
  import InputPlan.*

  /** False when the value is a single input's (or none): no slots then, and no assembly. */
  val needsSlots: Boolean = root match
    case _: Slot => false
    case Empty => false
    case _ => true

  /** Whether the body is read whole, as bytes decoded into the input's value. */
  def hasBody: Boolean = body != null

  /** Whether the body is read as a stream, which the logic gets before the body has arrived. */
  def streamsBody: Boolean = stream != null

  def newSlots(): Array[Any] = new Array[Any](leaves.length)

  /**
   * Decodes every input but the body. Without slots and without a body, returns the value (or `Failed`); otherwise
   * fills `slots` and returns `Failed`, or null when all decoded.
   */
  def decodeHead(request: rapier.server.spi.ServerRequest, slots: Array[Any] | Null): Any =
    if !needsSlots then
      root match
        case Slot(i) if i != bodySlot => leaves(i).nn.decode(request)
        case Slot(_) => null
        case _ => ()
    else
      val s = slots.nn
      var failures: List[InputFailure] = Nil
      var i = leaves.length - 1
      while i >= 0 do
        val leaf = leaves(i)
        if leaf != null then
          val v = leaf.decode(request)
          s(i) = v
          v match
            case f: Failed => failures = f.failures ++ failures
            case _ =>
        i -= 1
      if failures.isEmpty then null else new Failed(failures)

  /** Decodes the body from its bytes, then assembles the value; returns it, or `Failed`. */
  def decodeBody(request: rapier.server.spi.ServerRequest, slots: Array[Any] | Null, bytes: Array[Byte]): Any =
    withBody(body.nn.decode(request, bytes), slots)

  /**
   * Opens the body's stream, then assembles the value; returns it, or `Failed`, or a [[StreamBodyReader.Pending]] body
   * to hand [[completeBody]] once it has arrived.
   */
  def decodeStream(request: rapier.server.spi.ServerRequest, slots: Array[Any] | Null): Any =
    stream.nn.open(request) match
      case pending: StreamBodyReader.Pending => pending
      case v => withBody(v, slots)

  /** The input value once a pending body's value is `v` (or `Failed`). */
  def completeBody(v: Any, slots: Array[Any] | Null): Any = withBody(v, slots)

  /** The input value once the body's is `v` (or `Failed`): `v` itself, or assembled with the other slots. */
  private def withBody(v: Any, slots: Array[Any] | Null): Any =
    if !needsSlots then v
    else
      slots.nn(bodySlot) = v
      v match
        case f: Failed => f
        case _ => assemble(slots.nn)

  /** `head`'s failures, and the body's if it fails too: for reporting every failure at once. */
  def bodyFailures(request: rapier.server.spi.ServerRequest, bytes: Array[Byte], head: Failed): Failed =
    body.nn.decode(request, bytes) match
      case f: Failed => new Failed(head.failures ++ f.failures)
      case _ => head

  /** The input value from decoded slots, or `Failed` when a mapping rejects them. */
  def assemble(slots: Array[Any]): Any = eval(root, slots)

private[server] object InputPlan:
  /** How a value is built from slots. */
  sealed trait Node
  final case class Slot(index: Int) extends Node
  case object Empty extends Node
  final case class Group(parts: Array[Node], arities: Array[Int], total: Int) extends Node
  final case class Mapping(inner: Node, f: Any => DecodeResult[Any], ref: InputRef) extends Node

  private def eval(node: Node, slots: Array[Any]): Any = node match
    case Slot(i) => slots(i)
    case Empty => ()
    case Mapping(inner, f, ref) =>
      eval(inner, slots) match
        case failed: Failed => failed
        case v => Failed.unwrap(ref, f(v))
    case Group(parts, arities, total) =>
      val values = new Array[Any](total)
      var failures: List[InputFailure] = Nil
      var at = 0
      var i = 0
      while i < parts.length do
        eval(parts(i), slots) match
          case f: Failed => failures = failures ++ f.failures
          case v =>
            val n = arities(i)
            var j = 0
            while j < n do
              values(at + j) = Tuples.element(v, n, j)
              j += 1
        at += arities(i)
        i += 1
      if failures.nonEmpty then new Failed(failures) else Tuples.combine(values, 0, total)

  /** Compiles an input tree. `captures` numbers path captures across the security and the regular inputs. */
  def compile(
      input: EndpointInput[?],
      captures: Counter,
      bodyAllowed: Boolean,
      blocking: java.util.concurrent.Executor,
      files: TempFiles
  ): InputPlan =
    val builder = Builder(captures, bodyAllowed, blocking, files)
    val root = builder.node(IOTree.ofInput(input))
    new InputPlan(builder.leafArray, builder.body, builder.stream, builder.bodySlot, root)

  final class Counter(var next: Int = 0)

  private final class Builder(
      captures: Counter,
      bodyAllowed: Boolean,
      blocking: java.util.concurrent.Executor,
      files: TempFiles
  ):
    // The JDK's list: this runs once, at start, where a Scala buffer used nowhere else would be loaded for it
    private val leaves = java.util.ArrayList[LeafDecoder | Null]()
    var body: BodyReading | Null = null
    var stream: StreamBodyReader | Null = null

    /** The leaves' decoders, by slot (null at the body's). */
    def leafArray: Array[LeafDecoder | Null] = leaves.toArray(new Array[LeafDecoder | Null](leaves.size))
    var bodySlot: Int = -1

    def node(tree: IOTree[EndpointInput.Basic[?]]): Node = tree match
      case IOTree.Sequence(parts, arities) => group(parts.map(node).zip(arities), IOTree.total(arities))
      case IOTree.Mapped(inner, f, _) => mapping(inner, f)
      case IOTree.Empty | IOTree.Leaf(_: (EndpointInput.FixedPath | EndpointInput.FixedMethod), _) => Empty
      case IOTree.Leaf(leaf, _) => slot(leaf)

    private def group(parts: List[(Node, Int)], total: Int): Node =
      parts.filterNot(_._1 == Empty) match
        case Nil => Empty
        case (single, n) :: Nil if n == total => single
        case live => Group(live.map(_._1).toArray, live.map(_._2).toArray, total)

    private def mapping(inner: IOTree[EndpointInput.Basic[?]], f: Any => DecodeResult[Any]): Node =
      val first = leaves.size
      val n = node(inner)
      val refs = (first until leaves.size).flatMap(i => Option(leaves.get(i)).map(_.ref)) ++
        (if bodySlot >= first then List(body.nn.ref) else Nil)
      val ref = refs match
        case Seq(one) => one
        case many => InputRef(InputSource.Request, many.map(_.describe).mkString(", "))
      Mapping(n, f, ref)

    private def setBody(decoder: BodyReading | StreamBodyReader): Unit =
      require(bodyAllowed, "a body can't be a security input: security logic runs before the body is read")
      require(body == null && stream == null, "an endpoint can read only one body")
      decoder match
        case s: StreamBodyReader => stream = s
        case b: BodyReading => body = b
      bodySlot = leaves.size
      leaves.add(null)

    private def slot(leaf: EndpointInput.Basic[?]): Node =
      leaf match
        // A multipart body is read as it arrives too, its files written as they come; in a body of several
        // representations it is read whole like the others, since the Content-Type chooses after the body is read
        case EndpointIO.Body(
              raw @ (_: RawBodyType.StreamBody[?] | RawBodyType.FileBody | _: RawBodyType.MultipartBody),
              codec,
              _
            ) =>
          setBody(StreamBodyReader(raw, codec.asInstanceOf[Codec[Any, Any]], blocking, files))
        case EndpointIO.Body(raw, codec, _) =>
          setBody(BodyDecoder(raw, codec.asInstanceOf[Codec[Any, Any]], files))
        case EndpointIO.OneOfBody(variants, _) =>
          require(
            !variants.exists(v => v.raw.isInstanceOf[RawBodyType.StreamBody[?]] || v.raw == RawBodyType.FileBody),
            "a stream body can't be one of several representations: it is read before its Content-Type could choose"
          )
          setBody(NegotiatedBodyDecoder(variants.map(b =>
            BodyDecoder(b.raw, b.codec.asInstanceOf[Codec[Any, Any]], files)
          )))
        case other => leaves.add(decoder(other))
      Slot(leaves.size - 1)

    private def decoder(leaf: EndpointInput.Basic[?]): LeafDecoder = leaf match
      case EndpointInput.Auth(scheme, input, _) => authDecoder(scheme, input)
      case EndpointInput.AuthAlternatives(alternatives, _) =>
        val ref = InputRef(
          InputSource.Credentials,
          alternatives.map(_.scheme.label).distinct.mkString(" or "),
          alternatives.map(_.scheme.location).distinct.mkString(" or ")
        )
        LeafDecoder.FirstPresent(ref, alternatives.map(a => authDecoder(a.scheme, a.input)).toArray)
      case other => valueDecoder(other)

    /** The decoder of the input that carries credentials, reporting failures as failures of the credentials. */
    private def authDecoder(scheme: AuthScheme, input: EndpointInput.Basic[?]): LeafDecoder =
      LeafDecoder.Renamed(InputRef(InputSource.Credentials, scheme.label, scheme.location), valueDecoder(input))

    private def valueDecoder(leaf: EndpointInput.Basic[?]): LeafDecoder = leaf match
      case EndpointInput.PathCapture(name, codec, _, encodedSlash) =>
        LeafDecoder.pathSegment(
          InputRef(InputSource.Path, name),
          captures.next,
          codec.asInstanceOf[Codec[String, Any]],
          encodedSlash
        )
          .tap(_ => captures.next += 1)
      case EndpointInput.PathsCapture(codec, _) =>
        LeafDecoder.PathRest(
          InputRef(InputSource.Path, "paths"),
          captures.next,
          codec.asInstanceOf[Codec[List[String], Any]]
        )
          .tap(_ => captures.next += 1)
      case EndpointInput.Query(name, codec, _) =>
        LeafDecoder.query(InputRef(InputSource.Query, name), name, codec.asInstanceOf[Codec[List[String], Any]])
      case EndpointInput.AllQuery(codec, _) =>
        LeafDecoder.AllQuery(InputRef(InputSource.Query, "*"), codec.asInstanceOf[Codec[rapier.model.QueryParams, Any]])
      case EndpointInput.Cookie(name, codec, _) =>
        LeafDecoder.CookieValue(
          InputRef(InputSource.Cookie, name),
          name,
          codec.asInstanceOf[Codec[Option[String], Any]]
        )
      case EndpointInput.ExtractFromRequest(f, _) =>
        LeafDecoder.Extract(
          InputRef(InputSource.Request, ""),
          f.asInstanceOf[rapier.model.RequestView => DecodeResult[Any]]
        )
      case EndpointIO.Header(name, codec, _) =>
        LeafDecoder.header(InputRef(InputSource.Header, name), name, codec.asInstanceOf[Codec[List[String], Any]])
      case EndpointIO.FixedHeader(name, value, _) =>
        LeafDecoder.FixedHeader(InputRef(InputSource.Header, name), name, value)
      case EndpointIO.AllHeaders(codec, _) =>
        LeafDecoder.AllHeaders(
          InputRef(InputSource.Header, "*"),
          codec.asInstanceOf[Codec[List[rapier.model.Header], Any]]
        )
      case other => throw IllegalArgumentException(s"not a value input: $other")

  extension [A](a: A)
    private def tap(f: A => Unit): A =
      f(a); a
