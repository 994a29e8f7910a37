package rapier.server.internal

import rapier.*
import rapier.model.{Header, MediaType}
import rapier.server.spi.ServerRequest

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import scala.util.control.NonFatal

/**
 * Splits a `multipart/form-data` body (RFC 7578, with the framing of RFC 2046 §5.1) into its parts. The body is in
 * memory already; each part is copied once, into an array or into a temporary file. Files are registered on the
 * request, which deletes them once it is answered — or at once, when the body turns out to be malformed.
 */
private[server] object MultipartParser:
  private val CRLF = Array[Byte]('\r', '\n')
  private val HeaderEnd = Array[Byte]('\r', '\n', '\r', '\n')

  def parse(
      request: ServerRequest,
      contentType: String | Null,
      body: Array[Byte],
      limits: MultipartLimits,
      toDisk: (String, Option[String]) => Boolean
  ): Multipart | DecodeResult.Failure =
    val boundary = contentType match
      case null => None
      case ct: String => MediaType.parse(ct).toOption.flatMap(_.parameters.collectFirst { case ("boundary", b) => b })
    boundary match
      case Some(b) if b.nonEmpty && b.length <= 70 =>
        val created = List.newBuilder[Path]
        try
          val result = split(body, b.getBytes(StandardCharsets.ISO_8859_1), limits, toDisk, created)
          result match
            case failure: DecodeResult.Failure =>
              created.result().foreach(deleteQuietly)
              failure
            case parts: Multipart =>
              request.temporaryFiles = created.result() ++ request.temporaryFiles
              parts
        catch
          case NonFatal(e) =>
            created.result().foreach(deleteQuietly)
            throw e
      case _ =>
        DecodeResult.Malformed("a multipart/form-data Content-Type with a boundary parameter of 1 to 70 characters")

  def deleteQuietly(file: Path): Unit =
    try Files.deleteIfExists(file)
    catch case NonFatal(_) => ()

  private def split(
      body: Array[Byte],
      boundary: Array[Byte],
      limits: MultipartLimits,
      toDisk: (String, Option[String]) => Boolean,
      created: scala.collection.mutable.Builder[Path, List[Path]]
  ): Multipart | DecodeResult.Failure =
    val dashBoundary = Array[Byte]('-', '-') ++ boundary
    val delimiter = CRLF ++ dashBoundary
    val first = indexOf(body, dashBoundary, 0)
    if first < 0 || (first > 0 && (first < 2 || body(first - 2) != '\r' || body(first - 1) != '\n')) then
      return DecodeResult.Malformed("a multipart body starting with its boundary")
    val parts = List.newBuilder[Part[PartData]]
    var count = 0
    var pos = first + dashBoundary.length
    while true do
      if startsWith(body, pos, Array[Byte]('-', '-')) then return Multipart(parts.result())
      while pos < body.length && (body(pos) == ' ' || body(pos) == '\t') do pos += 1
      if !startsWith(body, pos, CRLF) then
        return DecodeResult.Malformed(s"a line break after the boundary, at byte $pos")
      pos += 2
      count += 1
      if count > limits.maxParts then return DecodeResult.Error(s"at most ${limits.maxParts} parts")
      // the part's headers
      val headersEnd = if startsWith(body, pos, CRLF) then pos - 2 else indexOf(body, HeaderEnd, pos)
      if headersEnd < 0 then return DecodeResult.Malformed(s"the headers of part $count, ended by an empty line")
      if headersEnd - pos > limits.maxHeaderSize then
        return DecodeResult.Error(s"part headers of at most ${limits.maxHeaderSize} bytes")
      val headers = parseHeaders(body, pos, headersEnd) match
        case Some(h) => h
        case None => return DecodeResult.Malformed(s"headers of the form 'Name: value' in part $count")
      val contentStart = headersEnd + 4
      val contentEnd = indexOf(body, delimiter, contentStart)
      if contentEnd < 0 then return DecodeResult.Malformed(s"part $count closed by the boundary")
      val disposition = headers.find(_.is("Content-Disposition")).map(h => dispositionParams(h.value))
      val name = disposition.flatMap(_.get("name")) match
        case Some(n) => n
        case None => return DecodeResult.Malformed(s"a Content-Disposition with a name in part $count")
      val size = contentEnd - contentStart
      if size > limits.maxPartSize then return DecodeResult.TooLarge(limits.maxPartSize)
      val fileName = disposition.flatMap(_.get("filename"))
      val data =
        if toDisk(name, fileName) then
          val file = Files.createTempFile("rapier-upload-", ".part")
          created += file
          val out = Files.newOutputStream(file)
          try out.write(body, contentStart, size)
          finally out.close()
          PartData.OnDisk(file, size.toLong)
        else PartData.InMemory(java.util.Arrays.copyOfRange(body, contentStart, contentEnd))
      parts += Part(name, data, fileName, headers.find(_.is("Content-Type")).map(_.value), headers)
      pos = contentEnd + delimiter.length
    Multipart(Nil) // not reached: the loop returns

  /** `Name: value` lines, as UTF-8 (RFC 7578 §5.1 allows it for names and file names); None if one is not. */
  private def parseHeaders(body: Array[Byte], from: Int, to: Int): Option[List[Header]] =
    if to <= from then Some(Nil)
    else
      val text = new String(body, from, to - from, StandardCharsets.UTF_8)
      val lines = text.split("\r\n", -1).toList
      val headers = lines.map { line =>
        val colon = line.indexOf(':')
        if colon <= 0 || !rapier.model.Tokens.isToken(line.substring(0, colon)) then None
        else Some(Header(line.substring(0, colon), line.substring(colon + 1).trim))
      }
      if headers.forall(_.isDefined) then Some(headers.flatten) else None

  /** The parameters of `form-data; name="field"; filename="a.txt"`, names in lower case, quotes removed. */
  private def dispositionParams(value: String): Map[String, String] =
    val params = Map.newBuilder[String, String]
    var i = value.indexOf(';')
    if i < 0 || !value.substring(0, i).trim.equalsIgnoreCase("form-data") then return Map.empty
    i += 1
    while i < value.length do
      while i < value.length && (value.charAt(i) == ' ' || value.charAt(i) == '\t') do i += 1
      val eq = value.indexOf('=', i)
      if eq < 0 then return params.result()
      val key = value.substring(i, eq).trim.toLowerCase(java.util.Locale.ROOT)
      i = eq + 1
      val v = new StringBuilder
      if i < value.length && value.charAt(i) == '"' then
        i += 1
        while i < value.length && value.charAt(i) != '"' do
          if value.charAt(i) == '\\' && i + 1 < value.length then i += 1
          v.append(value.charAt(i))
          i += 1
        i += 1
        while i < value.length && value.charAt(i) != ';' do i += 1
      else
        while i < value.length && value.charAt(i) != ';' do
          v.append(value.charAt(i))
          i += 1
      params += key -> v.toString.trim
      i += 1
    params.result()

  private def startsWith(body: Array[Byte], at: Int, prefix: Array[Byte]): Boolean =
    if at + prefix.length > body.length then false
    else
      var i = 0
      while i < prefix.length do
        if body(at + i) != prefix(i) then return false
        i += 1
      true

  private def indexOf(body: Array[Byte], target: Array[Byte], from: Int): Int =
    val first = target(0)
    val last = body.length - target.length
    var i = from
    while i <= last do
      if body(i) == first && startsWith(body, i, target) then return i
      i += 1
    -1
