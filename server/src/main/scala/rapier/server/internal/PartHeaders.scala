package rapier.server.internal

import rapier.model.{Header, HeaderParameters}

import java.nio.charset.StandardCharsets

/** What a `multipart/form-data` body's framing says: its boundary, and each part's headers (RFC 7578, RFC 2046 §5.1). */
private[server] object PartHeaders:
  /** The boundary a `Content-Type` names, as bytes; null without one of 1 to 70 characters (RFC 2046 §5.1.1). */
  def boundaryOrNull(contentType: String | Null): Array[Byte] | Null =
    if contentType == null then null
    else
      HeaderParameters.find(contentType, "boundary") match
        case b: String if b.nonEmpty && b.length <= 70 => b.getBytes(StandardCharsets.ISO_8859_1)
        case _ => null

  /**
   * `Name: value` lines, the part's header section without its closing empty line, as UTF-8 (RFC 7578 §5.1 allows it
   * for names and file names); None if a line is not of that form.
   */
  def parse(bytes: Array[Byte], length: Int): Option[List[Header]] =
    if length == 0 then Some(Nil)
    else
      val lines = new String(bytes, 0, length, StandardCharsets.UTF_8).split("\r\n", -1).toList
      val headers = lines.map { line =>
        val colon = line.indexOf(':')
        if colon <= 0 || !rapier.model.Tokens.isToken(line.substring(0, colon)) then None
        else Some(Header(line.substring(0, colon), line.substring(colon + 1).trim))
      }
      if headers.forall(_.isDefined) then Some(headers.flatten) else None

  /** The parameters of `form-data; name="field"; filename="a.txt"`, names in lower case, quotes removed. */
  def dispositionParams(value: String): Map[String, String] =
    val semicolon = value.indexOf(';')
    if semicolon < 0 || !value.substring(0, semicolon).trim.equalsIgnoreCase("form-data") then Map.empty
    else HeaderParameters.all(value).toMap
