package rapier

/**
 * The shape of an input or output tree, seen one way for both: the one walk over `Pair`, `Mapped` and `Empty` nodes.
 * Interpreters (the server's input and output plans, the OpenAPI writer, the endpoint's own path and method) work on
 * this shape and match only the leaves they care about.
 *
 * Nested pairs are flattened into one [[IOTree.Sequence]] whose parts keep the number of values each stands for: the
 * arity the types gave (see [[Combine]]), or, where they did not say, the one the structure gives.
 *
 * @tparam L
 *   the leaves: `EndpointInput.Basic[?]` for inputs; for outputs, `EndpointOutput.Basic[?]` or a whole `OneOf`
 */
enum IOTree[+L]:
  /** One basic input or output, standing for `values` values: 0 for fixed ones (method, path segment, status, header). */
  case Leaf(leaf: L, values: Int)

  /** No value: `EndpointIO.Empty`. */
  case Empty

  /** Parts in order, each with the number of values it stands for. */
  case Sequence(parts: List[IOTree[L]], arities: List[Int])

  /** A tree read as another type by `f` and written back by `g`; it stands for one value. */
  case Mapped(inner: IOTree[L], f: Any => DecodeResult[Any], g: Any => Any)

  /** How many values the tree stands for. */
  def arity: Int = this match
    case Leaf(_, values) => values
    case Empty => 0
    case Sequence(_, arities) => IOTree.total(arities)
    case Mapped(_, _, _) => 1

  /** The leaves, in order. */
  def leaves: List[L] = this match
    case Leaf(leaf, _) => leaf :: Nil
    case Empty => Nil
    case Sequence(parts, _) => parts.flatMap(_.leaves)
    case Mapped(inner, _, _) => inner.leaves

object IOTree:
  /** How many values a sequence's parts stand for together (a plain sum: `.sum` would load `Numeric` at start). */
  def total(arities: List[Int]): Int = arities.foldLeft(0)(_ + _)

  /** The shape of an input tree. */
  def ofInput(input: EndpointInput[?]): IOTree[EndpointInput.Basic[?]] =
    walk(input).asInstanceOf[IOTree[EndpointInput.Basic[?]]]

  /** The shape of an output tree; a `oneOf` is a leaf, its variants trees of their own. */
  def ofOutput(output: EndpointOutput[?]): IOTree[EndpointOutput[?]] =
    walk(output).asInstanceOf[IOTree[EndpointOutput[?]]]

  private type Node = EndpointInput[?] | EndpointOutput[?]

  private def walk(node: Node): IOTree[Node] = node match
    case EndpointIO.Pair(l, r, la, ra) => sequence(l, la, r, ra)
    case EndpointInput.Pair(l, r, la, ra) => sequence(l, la, r, ra)
    case EndpointOutput.Pair(l, r, la, ra) => sequence(l, la, r, ra)
    case EndpointIO.Mapped(i, f, g) => mapped(i, f, g)
    case EndpointInput.Mapped(i, f, g) => mapped(i, f, g)
    case EndpointOutput.Mapped(o, f, g) => mapped(o, f, g)
    case EndpointIO.Empty => Empty
    case fixed @ (_: EndpointInput.FixedMethod | _: EndpointInput.FixedPath | _: EndpointIO.FixedHeader |
        _: EndpointOutput.FixedStatusCode) =>
      Leaf(fixed, 0)
    case leaf => Leaf(leaf, 1)

  private def mapped(inner: Node, f: Any, g: Any): IOTree[Node] =
    Mapped(walk(inner), f.asInstanceOf[Any => DecodeResult[Any]], g.asInstanceOf[Any => Any])

  private def sequence(l: Node, la: Int, r: Node, ra: Int): IOTree[Node] =
    val (lp, lw) = flatten(walk(l), la)
    val (rp, rw) = flatten(walk(r), ra)
    Sequence(lp ++ rp, lw ++ rw)

  /** A part's own parts when it is a sequence itself; its declared arity when the types gave one (not -1). */
  private def flatten(tree: IOTree[Node], declared: Int): (List[IOTree[Node]], List[Int]) = tree match
    case Sequence(parts, arities) if declared < 0 || declared == total(arities) => (parts, arities)
    case other => (List(other), List(if declared >= 0 then declared else other.arity))
