package rapier.json.jsoniter

import java.nio.ByteBuffer

/**
 * Finds the top-level values of a JSON stream as its bytes arrive, chunk by chunk, without parsing them: the elements
 * of one JSON array, or values one after another separated by whitespace (newline-delimited JSON). It tracks only
 * nesting and strings; each value found is handed whole to a real parser. Bytes of a value that spans chunks are kept
 * until it is complete, in one buffer reused for the whole stream, so memory is bounded by the largest value.
 *
 * Not thread-safe: one reader feeds it.
 *
 * @param array
 *   a JSON array (`[v, v, …]`) rather than values separated by whitespace
 * @param maxValueSize
 *   the largest value accepted, in bytes
 */
private[jsoniter] final class JsonSplitter(array: Boolean, maxValueSize: Int):
  import JsonSplitter.*

  private var buffer = new Array[Byte](4096)
  private var length = 0
  // Where the value being read starts in `buffer` (-1: between values), and how far it has been scanned.
  private var start = -1
  private var scanned = 0
  private var depth = 0
  private var inString = false
  private var escaped = false
  private var scalar = false
  // Array framing: before '[', between elements (expecting a value or ']'), after an element (',' or ']'), after ']'.
  private var state = if array then BeforeArray else BetweenValues
  private var offset = 0L

  /**
   * Takes in a chunk, calling `value(bytes, from, to)` for each value it completes (the bytes are valid during the
   * call only). A syntax error in the framing is returned as a message; null otherwise.
   */
  def feed(chunk: ByteBuffer, value: (Array[Byte], Int, Int) => Unit): String | Null =
    append(chunk)
    scan(value)

  /** The input ended: a value or array left incomplete is an error message; null if the stream is whole. */
  def end(value: (Array[Byte], Int, Int) => Unit): String | Null =
    if start >= 0 && scalar && !array then
      // A bare scalar ends with the input.
      value(buffer, start, length)
      start = -1
      null
    else if start >= 0 || inString || depth > 0 then s"the stream ends inside a value, at byte $offset"
    else if array && state != AfterArray then s"the stream ends before its array's closing ']', at byte $offset"
    else null

  private def append(chunk: ByteBuffer): Unit =
    val n = chunk.remaining
    // Drop what is consumed before growing.
    val keep = if start >= 0 then start else scanned
    if keep > 0 then
      System.arraycopy(buffer, keep, buffer, 0, length - keep)
      length -= keep
      scanned -= keep
      if start >= 0 then start = 0
    if length + n > buffer.length then
      buffer = java.util.Arrays.copyOf(buffer, math.max(buffer.length * 2, length + n))
    chunk.get(buffer, length, n)
    length += n

  private def scan(value: (Array[Byte], Int, Int) => Unit): String | Null =
    while scanned < length do
      val b = buffer(scanned)
      if start >= 0 then
        // Inside a value.
        if inString then
          if escaped then escaped = false
          else if b == '\\' then escaped = true
          else if b == '"' then
            inString = false
            if depth == 0 then complete(scanned + 1, value)
        else if scalar then
          if isWhitespace(b) || b == ',' || b == ']' || b == '}' || b == '[' || b == '{' || b == '"' then
            complete(scanned, value)
            // The byte that ended the scalar is framing: read it again, as the next step.
            scanned -= 1
            offset -= 1
        else if b == '"' then inString = true
        else if b == '{' || b == '[' then depth += 1
        else if b == '}' || b == ']' then
          depth -= 1
          if depth == 0 then complete(scanned + 1, value)
        if start >= 0 && scanned + 1 - start > maxValueSize then
          return s"a value of the stream is larger than $maxValueSize bytes, at byte $offset"
      else if !isWhitespace(b) then
        state match
          case BeforeArray =>
            if b != '[' then return s"expected a JSON array, at byte $offset"
            state = BetweenValues
          case AfterValue =>
            if b == ',' then state = AfterComma
            else if b == ']' then state = AfterArray
            else return s"expected ',' or ']' between array elements, at byte $offset"
          case AfterArray => return s"unexpected content after the array, at byte $offset"
          case _ =>
            if array && b == ']' && state == BetweenValues then state = AfterArray
            else if b == ',' || b == ']' || b == '}' then return s"unexpected '${b.toChar}', at byte $offset"
            else
              start = scanned
              if b == '"' then inString = true
              else if b == '{' || b == '[' then depth = 1
              else scalar = true
      scanned += 1
      offset += 1
    null

  /** The value from `start` to `end` is complete. */
  private def complete(end: Int, value: (Array[Byte], Int, Int) => Unit): Unit =
    value(buffer, start, end)
    start = -1
    scalar = false
    depth = 0
    if array then state = AfterValue

private object JsonSplitter:
  private val BeforeArray = 0
  private val BetweenValues = 1
  private val AfterValue = 2
  private val AfterComma = 3
  private val AfterArray = 4

  private def isWhitespace(b: Byte): Boolean = b == ' ' || b == '\n' || b == '\r' || b == '\t'
