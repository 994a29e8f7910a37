package rapier.model

import java.nio.ByteBuffer
import java.nio.CharBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction
import java.nio.charset.StandardCharsets

/**
 * Percent-decoding (RFC 3986 §2.1) of URI components into UTF-8 text, strictly: an escape that is not `%` and two
 * hex digits, or bytes that are not valid UTF-8, make the whole component invalid. Text without `%` (and without
 * `+` where it means a space) is returned as a plain substring, with no further allocation.
 */
object PercentEncoding:

  /**
   * Decodes `s[from, to)`; `plusIsSpace` for query strings and form bodies. Returns null when the text is not
   * validly encoded: callers turn that into their own error, so no exception is built on a hot path.
   */
  def decodeOrNull(s: String, from: Int, to: Int, plusIsSpace: Boolean): String | Null =
    var i = from
    var plain = true
    while plain && i < to do
      val c = s.charAt(i)
      if c == '%' || (plusIsSpace && c == '+') then plain = false
      i += 1
    if plain then s.substring(from, to) else decodeEscaped(s, from, to, plusIsSpace)

  /** Decodes the whole of `s`, or returns null when it is not validly encoded. */
  def decodeOrNull(s: String, plusIsSpace: Boolean): String | Null = decodeOrNull(s, 0, s.length, plusIsSpace)

  /**
   * One pass over text with escapes: escapes become their bytes, raw characters their UTF-8 bytes, and the bytes
   * are then decoded strictly. At most 3 bytes per character (a surrogate pair, 2 characters, makes 4).
   */
  private def decodeEscaped(s: String, from: Int, to: Int, plusIsSpace: Boolean): String | Null =
    val bytes = new Array[Byte](3 * (to - from))
    var n = 0
    var i = from
    while i < to do
      val c = s.charAt(i)
      if c == '%' then
        if i + 2 >= to then return null
        val hi = hex(s.charAt(i + 1))
        val lo = hex(s.charAt(i + 2))
        if hi < 0 || lo < 0 then return null
        bytes(n) = ((hi << 4) | lo).toByte
        n += 1
        i += 3
      else if c == '+' && plusIsSpace then
        bytes(n) = ' '.toByte
        n += 1
        i += 1
      else if c < 0x80 then
        bytes(n) = c.toByte
        n += 1
        i += 1
      else
        val codePoint =
          if Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1)) then
            Character.toCodePoint(c, s.charAt(i + 1))
          else if Character.isSurrogate(c) then return null
          else c.toInt
        n = putUtf8(bytes, n, codePoint)
        i += Character.charCount(codePoint)
    utf8OrNull(bytes, n)

  private def putUtf8(bytes: Array[Byte], at: Int, cp: Int): Int =
    if cp < 0x800 then
      bytes(at) = (0xc0 | (cp >> 6)).toByte
      bytes(at + 1) = (0x80 | (cp & 0x3f)).toByte
      at + 2
    else if cp < 0x10000 then
      bytes(at) = (0xe0 | (cp >> 12)).toByte
      bytes(at + 1) = (0x80 | ((cp >> 6) & 0x3f)).toByte
      bytes(at + 2) = (0x80 | (cp & 0x3f)).toByte
      at + 3
    else
      bytes(at) = (0xf0 | (cp >> 18)).toByte
      bytes(at + 1) = (0x80 | ((cp >> 12) & 0x3f)).toByte
      bytes(at + 2) = (0x80 | ((cp >> 6) & 0x3f)).toByte
      bytes(at + 3) = (0x80 | (cp & 0x3f)).toByte
      at + 4

  private def hex(c: Char): Int =
    if c >= '0' && c <= '9' then c - '0'
    else if c >= 'a' && c <= 'f' then c - 'a' + 10
    else if c >= 'A' && c <= 'F' then c - 'A' + 10
    else -1

  private def utf8OrNull(bytes: Array[Byte], length: Int): String | Null =
    val decoder = StandardCharsets.UTF_8
      .newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT)
    try
      val chars: CharBuffer = decoder.decode(ByteBuffer.wrap(bytes, 0, length))
      chars.toString
    catch case _: CharacterCodingException => null

  private val unreservedPath: Array[Boolean] = Tokens.asciiTable(Tokens.alphanumeric + "-._~!$&'()*+,;=:@")

  private val unreservedQuery: Array[Boolean] = Tokens.asciiTable(Tokens.alphanumeric + "-._~!$'()*,;:@/?")

  /** Encodes text as one path segment: everything but unreserved characters and sub-delimiters is escaped. */
  def encodePathSegment(s: String): String = encode(s, unreservedPath, spaceAsPlus = false)

  /** Encodes text as a query name or value (`&`, `=`, `+` and `#` escaped; space as `%20`). */
  def encodeQueryComponent(s: String): String = encode(s, unreservedQuery, spaceAsPlus = false)

  /** Encodes text as a name or value of an `application/x-www-form-urlencoded` body (space as `+`). */
  def encodeFormComponent(s: String): String = encode(s, unreservedQuery, spaceAsPlus = true)

  private def encode(s: String, keep: Array[Boolean], spaceAsPlus: Boolean): String =
    if s.forall(c => c < 128 && keep(c)) then s
    else
      val b = new StringBuilder(s.length + 16)
      s.getBytes(StandardCharsets.UTF_8).foreach { byte =>
        val c = (byte & 0xff).toChar
        if c < 128 && keep(c) then b.append(c)
        else if c == ' ' && spaceAsPlus then b.append('+')
        else b.append('%').append("0123456789ABCDEF".charAt((c >> 4) & 0xf)).append("0123456789ABCDEF".charAt(c & 0xf))
      }
      b.toString
