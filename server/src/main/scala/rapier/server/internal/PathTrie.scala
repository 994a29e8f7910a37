package rapier.server.internal

import rapier.model.PercentEncoding
import rapier.server.spi.ServerRequest

/** One part of an endpoint's path, as routing sees it: names of captures don't matter here. */
private[server] enum PathPart:
  case Fixed(segment: String)
  case Capture
  case Rest

/**
 * The router: a trie over path segments, built once when a server starts, with method dispatch at each node.
 *
 * A request walks its own path once, whatever the number of endpoints. At each node a fixed segment is tried first,
 * then a capture, then the rest of the path; the walk backs up when a branch leads nowhere, so `/a/{x}/b` and
 * `/a/{rest*}` both get their requests. Segments are compared as ranges of the request target: no substring is
 * made unless a segment is percent-encoded.
 */
private[server] final class PathTrie[E <: AnyRef] private (root: PathTrie.Node[E], val maxCaptures: Int):
  import PathTrie.*

  /**
   * The endpoint for `method` at the path `target[from, to)`, or null. `from` is the path's leading `/` (or `to`,
   * for an empty path). The ranges of captured segments go to `request`, in path order; the
   * rest of a path is one range.
   */
  def find(target: String, from: Int, to: Int, method: String, request: ServerRequest): E | Null =
    walk(root, target, firstSegment(from, to), to, method, request, 0)

  /** The methods that some endpoint accepts at this path, in the order an `Allow` header lists them. */
  def allowedMethods(target: String, from: Int, to: Int): List[String] =
    allowOrder(collect(root, target, firstSegment(from, to), to, Nil))

  /** The index of the `/` before the next segment, or `to` when there are none (`/` and the empty path). */
  private def firstSegment(from: Int, to: Int): Int = if to - from <= 1 then to else from

  private def walk(node: Node[E], t: String, i: Int, to: Int, method: String, request: ServerRequest, k: Int): E |
    Null =
    if i >= to then
      val here = node.methods.find(method)
      if here != null then here
      else if node.rest != null then
        val e = node.rest.methods.find(method)
        if e != null then request.capture(k, to, to, maxCaptures)
        e
      else null
    else
      val start = i + 1
      var end = start
      var escaped = false
      while end < to && t.charAt(end) != '/' do
        if t.charAt(end) == '%' then escaped = true
        end += 1
      // 1. a fixed segment
      val child = fixedChild(node, t, start, end, escaped)
      val viaFixed = if child == null then null else walk(child, t, end, to, method, request, k)
      if viaFixed != null then viaFixed
      else
        // 2. a capture, which never takes an empty segment
        val viaCapture =
          if node.capture == null || end == start then null
          else walk(node.capture, t, end, to, method, request, k + 1)
        if viaCapture != null then
          request.capture(k, start, end, maxCaptures)
          viaCapture
        else if node.rest != null then
          // 3. the rest of the path
          val e = node.rest.methods.find(method)
          if e != null then request.capture(k, start, to, maxCaptures)
          e
        else null

  private def fixedChild(node: Node[E], t: String, start: Int, end: Int, escaped: Boolean): Node[E] | Null =
    if node.fixed.isEmpty then null
    else if !escaped then node.fixed.get(t, start, end)
    else
      PercentEncoding.decodeOrNull(t, start, end, plusIsSpace = false) match
        case null => null
        case s: String => node.fixed.get(s)

  /** `found` and the methods of every endpoint the path `t[i, to)` reaches from `node` (some perhaps twice). */
  private def collect(node: Node[E], t: String, i: Int, to: Int, found: List[String]): List[String] =
    val here =
      if i >= to then withNames(node.methods, found)
      else
        val start = i + 1
        var end = t.indexOf('/', start)
        if end < 0 || end > to then end = to
        val child = fixedChild(node, t, start, end, t.substring(start, end).contains('%'))
        val viaFixed = if child == null then found else collect(child, t, end, to, found)
        if node.capture != null && end > start then collect(node.capture, t, end, to, viaFixed) else viaFixed
    if node.rest == null then here else withNames(node.rest.methods, here)

  private def withNames(methods: Methods[E], found: List[String]): List[String] =
    methods.names.foldLeft(found)((all, m) => m :: all)

private[server] object PathTrie:
  /** `methods` as an `Allow` header lists them: the standard ones in their order (HEAD with GET), then the others. */
  def allowOrder(methods: List[String]): List[String] =
    val standard = rapier.model.Method.standard.map(_.name)
    val withHead = if methods.contains("GET") then "HEAD" :: methods else methods
    val others = withHead.filterNot(standard.contains).sorted
    // each once: equal names are next to each other once sorted
    standard.filter(withHead.contains) ++ others.foldRight(List.empty[String]) { (m, kept) =>
      if kept.nonEmpty && kept.head == m then kept else m :: kept
    }

  final class Node[E <: AnyRef](
      val fixed: SegmentTable[Node[E]],
      val capture: Node[E] | Null,
      val rest: Node[E] | Null,
      val methods: Methods[E]
  )

  /**
   * The endpoints of one node by method; `any` takes methods that no endpoint names. A HEAD request goes to the
   * GET endpoint when no endpoint names HEAD.
   */
  final class Methods[E <: AnyRef](val names: Array[String], endpoints: Array[AnyRef], any: E | Null):
    def find(method: String): E | Null =
      var i = 0
      while i < names.length do
        val n = names(i)
        // Backends pass interned method names: the reference check usually decides.
        if (n eq method) || n == method then return endpoints(i).asInstanceOf[E]
        i += 1
      if method == "HEAD" then
        val get = findExact("GET")
        if get != null then return get
      any

    private def findExact(method: String): E | Null =
      val i = names.indexOf(method)
      if i < 0 then null else endpoints(i).asInstanceOf[E]

  /**
   * Collects endpoints, then freezes them into a trie. Its maps are the JDK's: this runs once, at start, where a
   * Scala collection used nowhere else would be loaded from its jar for it.
   */
  final class Builder[E <: AnyRef]:
    private final class Draft:
      val fixed = java.util.LinkedHashMap[String, Draft]()
      var capture: Draft | Null = null
      var rest: Draft | Null = null
      val methods = java.util.LinkedHashMap[String, E]()
      var any: E | Null = null

    private val root = Draft()
    private var maxCaptures = 0

    /**
     * Adds an endpoint at a path shape, for one method or (None) any. Returns the endpoint already there for the
     * same method and shape, which makes the new one unreachable; the new one is then not added.
     */
    def add(parts: List[PathPart], method: Option[String], endpoint: E): Option[E] =
      var node = root
      var captures = 0
      parts.foreach {
        case PathPart.Fixed(s) =>
          val child = node.fixed.get(s)
          node =
            if child != null then child
            else
              val created = Draft()
              node.fixed.put(s, created)
              created
        case PathPart.Capture =>
          if node.capture == null then node.capture = Draft()
          node = node.capture.nn
          captures += 1
        case PathPart.Rest =>
          if node.rest == null then node.rest = Draft()
          node = node.rest.nn
          captures += 1
      }
      maxCaptures = Math.max(maxCaptures, captures)
      val existing = method match
        case Some(m) => node.methods.putIfAbsent(m, endpoint)
        case None =>
          val any = node.any
          if any == null then node.any = endpoint
          any
      if existing == null then None else Some(existing.asInstanceOf[E])

    def build(): PathTrie[E] = new PathTrie(freeze(root), maxCaptures)

    private def freeze(d: Draft): Node[E] =
      var fixed = List.empty[(String, Node[E])]
      d.fixed.forEach((segment, child) => fixed = (segment -> freeze(child)) :: fixed)
      Node(
        SegmentTable(fixed.reverse),
        if d.capture == null then null else freeze(d.capture.nn),
        if d.rest == null then null else freeze(d.rest.nn),
        Methods(d.methods.keySet.toArray(Array.empty[String]), d.methods.values.toArray, d.any)
      )
