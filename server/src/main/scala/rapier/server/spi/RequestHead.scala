package rapier.server.spi

import rapier.model.Tokens
import rapier.server.spi.RequestSyntax.Invalid

import java.nio.charset.StandardCharsets

/**
 * A request head read strictly from its bytes (RFC 9112 §3 and §5), for [[FramingGuard]]: the request line's three
 * parts one space apart, field names that are tokens with no whitespace before the colon, values without control
 * characters, no obsolete folding, one valid Host on HTTP/1.1, and a framing RFC 9112 §6 allows. What it finds is in
 * its fields after [[read]]; `problem` is the refusal, or null.
 */
private[spi] final class RequestHead(maxLine: Int, maxHeader: Int):
  import RequestHead.Chunked

  var problem: Invalid | Null = null
  // The body's framing: its declared length (-1 for none), or chunked
  var length = -1L
  var chunked = false
  // Whether the request asks to switch protocols (an Upgrade field), so that what follows may not be HTTP/1.1
  var upgrade = false
  // Where the Transfer-Encoding value is in the bytes read, and whether a value holds obs-text (bytes past ASCII)
  var codingFrom = -1
  var codingTo = -1
  var obsText = false

  /**
   * Reads the head in `bytes` from `start` to `end`, which ends with the empty line; its line ends are known to be
   * CRLF.
   */
  def read(bytes: Array[Byte], start: Int, end: Int): Unit =
    problem = null
    length = -1L
    chunked = false
    upgrade = false
    codingFrom = -1
    obsText = false
    val lineEnd = indexOfCr(bytes, start, end)
    if lineEnd - start > maxLine then problem = Refusals.lineTooLong(maxLine)
    else if lineEnd + 2 + maxHeader < end - 2 then problem = Refusals.headerTooLarge(maxHeader)
    else
      val version = requestLine(bytes, start, lineEnd)
      if problem == null then fields(bytes, lineEnd + 2, end - 2, version == "HTTP/1.0")

  private def requestLine(bytes: Array[Byte], start: Int, end: Int): String =
    if isSpace(bytes(start)) then
      problem = RequestSyntax.InvalidSeparator
      return ""
    val methodEnd = wordEnd(bytes, start, end)
    val targetStart = afterOneSpace(bytes, methodEnd, end)
    val targetEnd = wordEnd(bytes, targetStart, end)
    val versionStart = afterOneSpace(bytes, targetEnd, end)
    val versionEnd = wordEnd(bytes, versionStart, end)
    val method = text(bytes, start, methodEnd)
    if targetStart < 0 || versionStart < 0 || versionEnd != end then
      problem =
        if versionStart < 0 && targetStart > 0 && targetEnd == end then RequestSyntax.InvalidVersion
        else RequestSyntax.InvalidSeparator
      ""
    else
      val version = text(bytes, versionStart, versionEnd)
      problem = RequestSyntax.method(method)
      if problem == null then problem = RequestSyntax.target(text(bytes, targetStart, targetEnd), method)
      if problem == null then problem = RequestSyntax.version(version)
      version

  private def fields(bytes: Array[Byte], start: Int, end: Int, http10: Boolean): Unit =
    var hosts = 0
    var host: String | Null = null
    var lengths = 0
    var codings: List[String] = Nil
    var at = start
    while problem == null && at < end do
      val lineEnd = indexOfCr(bytes, at, end)
      val colon = indexOf(bytes, ':', at, lineEnd)
      // Whitespace before the first field folds nothing: a name that is not one (RFC 9112 §2.2).
      if isSpace(bytes(at)) then
        problem = if at == start then RequestSyntax.InvalidFieldName else RequestSyntax.ObsoleteFold
      else if colon < 0 then problem = RequestSyntax.InvalidFieldName
      else
        var from = colon + 1
        var to = lineEnd
        while from < to && isSpace(bytes(from)) do from += 1
        while to > from && isSpace(bytes(to - 1)) do to -= 1
        // Names and values are checked as bytes: only the values framing depends on become strings.
        if !isToken(bytes, at, colon) then problem = RequestSyntax.InvalidFieldName
        else if !isValue(bytes, from, to) then problem = RequestSyntax.InvalidFieldValue
        else if named(bytes, at, colon, "host") then
          hosts += 1
          if host == null then host = text(bytes, from, to)
        else if named(bytes, at, colon, "content-length") then
          lengths += 1
          // A list (`3, 3`) is as many values as fields would be (RFC 9110 §8.6).
          if indexOf(bytes, ',', from, to) >= 0 then problem = RequestSyntax.DuplicateContentLength
          else
            length = Admission.declaredLength(text(bytes, from, to))
            if length == -2L then problem = Refusals.InvalidContentLength
        else if named(bytes, at, colon, "transfer-encoding") then
          codings = text(bytes, from, to) :: codings
          codingFrom = from
          codingTo = to
        else if named(bytes, at, colon, "upgrade") then upgrade = true
      at = lineEnd + 2
    if problem == null && lengths > 0 && codings.nonEmpty then problem = RequestSyntax.LengthAndChunked
    if problem == null then problem = RequestSyntax.framing(lengths, codings, http10)
    if problem == null then
      val listed =
        if codings.isEmpty then java.util.Collections.emptyList[String] else java.util.Arrays.asList(codings*)
      problem = RequestSyntax.head(hosts, host, !http10, listed)
      chunked = codings.nonEmpty
      if chunked then length = -1L

  /**
   * The head read last as a lenient parser reads it the same as a strict one: a chunked coding spelled `chunked` (a
   * list such as `, chunked` is legal, RFC 9110 §5.6.1, but not read by every parser), and with `obsTextAsUtf8` each
   * byte past ASCII as its Latin-1 character in UTF-8, for a parser that reads values as UTF-8. Null when it already
   * is: the common case copies nothing.
   */
  def normalized(bytes: Array[Byte], start: Int, end: Int, obsTextAsUtf8: Boolean): Array[Byte] | Null =
    val recode = obsTextAsUtf8 && obsText
    val respell = chunked && !(codingTo - codingFrom == 7 && named(bytes, codingFrom, codingTo, "chunked"))
    if !recode && !respell then null
    else
      val out = java.io.ByteArrayOutputStream(end - start + 16)
      def copy(from: Int, to: Int): Unit =
        if !recode then out.write(bytes, from, to - from)
        else
          var i = from
          while i < to do
            val b = bytes(i) & 0xff
            if b < 0x80 then out.write(b)
            else
              out.write(0xc0 | (b >> 6))
              out.write(0x80 | (b & 0x3f))
            i += 1
      if respell then
        copy(start, codingFrom)
        out.write(Chunked, 0, Chunked.length)
        copy(codingTo, end)
      else copy(start, end)
      out.toByteArray

  private def isToken(bytes: Array[Byte], from: Int, end: Int): Boolean =
    var i = from
    while i < end && bytes(i) >= 0 && Tokens.isTokenChar(bytes(i).toChar) do i += 1
    i == end && end > from

  // Visible characters, obs-text, spaces and tabs (RFC 9110 §5.5).
  private def isValue(bytes: Array[Byte], from: Int, end: Int): Boolean =
    var i = from
    while i < end && { val b = bytes(i); b < 0 || (b >= ' ' && b != 0x7f) || b == '\t' } do
      if bytes(i) < 0 then obsText = true
      i += 1
    i == end

  // Whether the name from `from` to `end` is `lower`, in any case.
  private def named(bytes: Array[Byte], from: Int, end: Int, lower: String): Boolean =
    end - from == lower.length && {
      var i = 0
      while i < lower.length && (bytes(from + i) | 0x20) == lower.charAt(i) do i += 1
      i == lower.length
    }

  private def wordEnd(bytes: Array[Byte], from: Int, end: Int): Int =
    if from < 0 then from
    else
      var i = from
      while i < end && !isSpace(bytes(i)) do i += 1
      i

  // Where the word after a separator of exactly one space starts, or -1 when the separator is another.
  private def afterOneSpace(bytes: Array[Byte], at: Int, end: Int): Int =
    if at < 0 || at + 1 >= end || bytes(at) != ' ' || isSpace(bytes(at + 1)) then -1 else at + 1

  private def isSpace(b: Byte): Boolean = b == ' ' || b == '\t'

  private def indexOfCr(bytes: Array[Byte], from: Int, end: Int): Int =
    val i = indexOf(bytes, '\r', from, end)
    if i < 0 then end else i

  private def indexOf(bytes: Array[Byte], b: Char, from: Int, end: Int): Int =
    var i = from
    while i < end && bytes(i) != b do i += 1
    if i < end then i else -1

  // Bytes as Latin-1 characters: a byte past ASCII stays one character, which the checks then refuse where it can't be.
  private def text(bytes: Array[Byte], from: Int, end: Int): String =
    if from >= end then "" else String(bytes, from, end - from, StandardCharsets.ISO_8859_1)

private object RequestHead:
  private val Chunked = "chunked".getBytes(StandardCharsets.ISO_8859_1)
