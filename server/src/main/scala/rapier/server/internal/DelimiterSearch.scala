package rapier.server.internal

import java.nio.ByteBuffer

/**
 * Finds a delimiter in bytes that arrive in chunks, handing every byte before it to a [[PartContent]] as it goes:
 * Knuth–Morris–Pratt over the chunks, so a delimiter cut between two chunks is found, each byte is looked at once, and
 * nothing is copied to find it. The bytes of a partial match at a chunk's end are held back — they are the
 * delimiter's own first bytes, so only their count is kept — and handed over later if the match fails.
 */
private[server] final class DelimiterSearch(delimiter: Array[Byte], initiallyMatched: Int = 0):
  // border(m): the longest proper prefix of delimiter[0, m) that is also its suffix, where a failed match resumes
  private val border: Array[Int] =
    val b = new Array[Int](delimiter.length + 1)
    var k = 0
    var i = 1
    while i < delimiter.length do
      while k > 0 && delimiter(i) != delimiter(k) do k = b(k)
      if delimiter(i) == delimiter(k) then k += 1
      b(i + 1) = k
      i += 1
    b

  /** How many of the delimiter's first bytes the bytes seen so far end with. */
  private var matched = initiallyMatched

  /**
   * Reads `buf` from its position, giving `out` every byte that is not part of the delimiter. Returns true when the
   * delimiter ends in `buf` (its position is then just past it, and the search starts afresh), false when `buf` is
   * read to its limit without finding it.
   */
  def scan(buf: ByteBuffer, out: PartContent): Boolean =
    val start = buf.position()
    val end = buf.limit()
    val heldBack = matched
    val first = delimiter(0)
    var m = matched
    var i = start
    while i < end && m < delimiter.length do
      val b = buf.get(i)
      if m == 0 then
        if b == first then m = 1
      else
        while m > 0 && delimiter(m) != b do m = border(m)
        if delimiter(m) == b then m += 1
      i += 1
    // Everything before the partial (or whole) match is content: first what was held back from earlier chunks,
    // then this chunk's bytes. Positions below `start` are the held-back bytes, delimiter[0, heldBack).
    val contentEnd = i - m
    if contentEnd > start - heldBack then
      if heldBack > 0 then out.write(delimiter, 0, math.min(heldBack, heldBack + contentEnd - start))
      if contentEnd > start then out.write(buf, start, contentEnd)
    buf.position(i)
    if m == delimiter.length then
      matched = 0
      true
    else
      matched = m
      false
