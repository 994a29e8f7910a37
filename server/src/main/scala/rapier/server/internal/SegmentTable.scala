package rapier.server.internal

/**
 * Fixed path segments to trie nodes, looked up by a range of the request target, so matching a segment allocates
 * nothing. Small tables are scanned; larger ones are open-addressed by the same hash as `String.hashCode`, computed
 * over the range.
 */
private[server] final class SegmentTable[V <: AnyRef](entries: List[(String, V)]):
  private val size = entries.size
  private val linear = size <= 4
  private val capacity = if linear then size else Integer.highestOneBit(size * 3) << 1
  private val keys = new Array[String](capacity)
  private val values = new Array[AnyRef](capacity)

  if linear then
    entries.zipWithIndex.foreach { case ((k, v), i) =>
      keys(i) = k
      values(i) = v
    }
  else entries.foreach((k, v) => put(k, v))

  def isEmpty: Boolean = size == 0

  /** The value for the segment `s[from, to)`, or null. */
  def get(s: String, from: Int, to: Int): V | Null =
    val length = to - from
    if linear then
      var i = 0
      while i < size do
        val k = keys(i)
        if k.length == length && s.regionMatches(from, k, 0, length) then return values(i).asInstanceOf[V]
        i += 1
      null
    else
      var h = 0
      var i = from
      while i < to do
        h = 31 * h + s.charAt(i)
        i += 1
      var slot = spread(h) & (capacity - 1)
      while keys(slot) != null do
        val k = keys(slot)
        if k.length == length && s.regionMatches(from, k, 0, length) then return values(slot).asInstanceOf[V]
        slot = (slot + 1) & (capacity - 1)
      null

  /** The value for a whole segment (one that had to be percent-decoded first), or null. */
  def get(segment: String): V | Null = get(segment, 0, segment.length)

  private def put(k: String, v: V): Unit =
    var slot = spread(k.hashCode) & (capacity - 1)
    while keys(slot) != null do slot = (slot + 1) & (capacity - 1)
    keys(slot) = k
    values(slot) = v

  private def spread(h: Int): Int = h ^ (h >>> 16)
