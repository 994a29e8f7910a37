package rapier.json.jsoniter

import rapier.codec.WholeNumbers

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.ISO_8859_1

/**
 * A document's numbers that JSON Schema calls integers though written with a zero fraction or an exponent
 * (`-12537.0`, `1e3`), written plainly: jsoniter-scala reads an `Int` only in the plain form, and a document that
 * failed is read again once with them rewritten. Numbers in strings are left as they are.
 */
private[jsoniter] object WholeNumbersInJson:
  /** The document with each such number written plainly; null when it has none. */
  def rewritten(json: Array[Byte], from: Int, to: Int): Array[Byte] | Null =
    var out: ByteArrayOutputStream | Null = null
    var copied = from // what is already in `out`
    var inString = false
    var i = from
    while i < to do
      val b = json(i)
      if inString then
        if b == '\\' then i += 1 else if b == '"' then inString = false
        i += 1
      else if b == '"' then
        inString = true
        i += 1
      else if b == '-' || (b >= '0' && b <= '9') then
        val start = i
        while i < to && numberByte(json(i)) do i += 1
        val token = String(json, start, i - start, ISO_8859_1)
        val whole = WholeNumbers.plain(token, 0, token.length)
        if whole != null then
          if out == null then out = ByteArrayOutputStream(to - from)
          out.nn.write(json, copied, start - copied)
          out.nn.write(whole.nn.getBytes(ISO_8859_1))
          copied = i
      else i += 1
    if out == null then null
    else
      out.nn.write(json, copied, to - copied)
      out.nn.toByteArray

  private def numberByte(b: Byte): Boolean =
    (b >= '0' && b <= '9') || b == '.' || b == 'e' || b == 'E' || b == '-' || b == '+'
