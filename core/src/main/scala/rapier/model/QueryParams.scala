package rapier.model

/**
 * Query parameters (or the fields of a form body) in the order received, percent-decoded. A name may repeat.
 *
 * Stored as two parallel arrays; lookups scan them, which beats hashing for the handful of parameters requests
 * carry.
 */
final class QueryParams private (names: Array[String], values: Array[String]):

  def size: Int = names.length
  def isEmpty: Boolean = names.length == 0

  /** The first value of `name`. */
  def get(name: String): Option[String] =
    val i = indexOf(name, 0)
    if i < 0 then None else Some(values(i))

  /** The first value of `name`, or null: for the interpreter's allocation-free lookups. */
  def firstOrNull(name: String): String | Null =
    val i = indexOf(name, 0)
    if i < 0 then null else values(i)

  /** How many times `name` occurs. */
  def count(name: String): Int =
    var n = 0
    var i = indexOf(name, 0)
    while i >= 0 do
      n += 1
      i = indexOf(name, i + 1)
    n

  /** Every value of `name`, in order. */
  def getAll(name: String): List[String] =
    var result = List.empty[String]
    var i = names.length - 1
    while i >= 0 do
      if names(i) == name then result = values(i) :: result
      i -= 1
    result

  def toList: List[(String, String)] = names.indices.map(i => (names(i), values(i))).toList

  /** Names to all their values, names in order of first appearance. */
  def toMultiMap: Map[String, List[String]] =
    scala.collection.immutable.ListMap.from(toList.groupBy(_._1).view.mapValues(_.map(_._2)).toList.sortBy { (n, _) =>
      indexOf(n, 0)
    })

  /** The parameters as a query string (without `?`), names and values percent-encoded. */
  def render: String =
    names.indices.map(i =>
      s"${PercentEncoding.encodeQueryComponent(names(i))}=${PercentEncoding
          .encodeQueryComponent(values(i))}"
    ).mkString("&")

  private def indexOf(name: String, from: Int): Int =
    var i = from
    while i < names.length do
      if names(i) == name then return i
      i += 1
    -1

  override def equals(other: Any): Boolean = other match
    case q: QueryParams => toList == q.toList
    case _ => false

  override def hashCode: Int = toList.hashCode
  override def toString: String = toList.map((n, v) => s"$n=$v").mkString("QueryParams(", ", ", ")")

object QueryParams:
  val empty: QueryParams = new QueryParams(Array.empty, Array.empty)

  def apply(params: (String, String)*): QueryParams =
    new QueryParams(params.map(_._1).toArray, params.map(_._2).toArray)

  def fromMultiMap(params: Map[String, Seq[String]]): QueryParams =
    apply(params.toSeq.flatMap((n, vs) => vs.map(n -> _))*)

  /**
   * Parses `s[from, to)`, a query string or a form body: `&`-separated `name=value` pairs, `+` meaning space. A pair
   * without `=` has an empty value; empty pairs (`a=1&&b=2`) are skipped. Returns null if any part is not validly
   * percent-encoded UTF-8.
   */
  def parseOrNull(s: String, from: Int, to: Int): QueryParams | Null =
    if from >= to then empty
    else
      var pairs = 1
      var i = from
      while i < to do
        if s.charAt(i) == '&' then pairs += 1
        i += 1
      val names = new Array[String](pairs)
      val values = new Array[String](pairs)
      var n = 0
      var start = from
      var failed = false
      while !failed && start <= to do
        var end = s.indexOf('&', start)
        if end < 0 || end > to then end = to
        if end > start then
          var eq = s.indexOf('=', start)
          if eq < 0 || eq > end then eq = end
          val name = PercentEncoding.decodeOrNull(s, start, eq, plusIsSpace = true)
          val value = if eq == end then "" else PercentEncoding.decodeOrNull(s, eq + 1, end, plusIsSpace = true)
          if name == null || value == null then failed = true
          else
            names(n) = name
            values(n) = value
            n += 1
        start = end + 1
      if failed then null
      else if n == pairs then new QueryParams(names, values)
      else new QueryParams(java.util.Arrays.copyOf(names, n), java.util.Arrays.copyOf(values, n))

  /** Parses a whole query string or form body; see `parseOrNull`. */
  def parse(s: String): Either[String, QueryParams] =
    parseOrNull(s, 0, s.length) match
      case null => Left("a query of name=value pairs, percent-encoded as UTF-8")
      case q: QueryParams => Right(q)
