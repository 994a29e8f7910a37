package rapier.model

import java.nio.charset.{Charset, CharacterCodingException, CodingErrorAction, StandardCharsets}

/** Text from bytes, as bodies and body parts carry it: in the charset their `Content-Type` declares, strictly. */
object Text:
  /**
   * The charset a `Content-Type`'s `charset` parameter names; `default` when it names none; null when it names one the
   * JVM doesn't know, in which no body can be read.
   */
  def charsetOf(contentType: String | Null, default: Charset): Charset | Null =
    if contentType == null then default
    else
      HeaderParameters.find(contentType, "charset") match
        case null => default
        case name: String =>
          if name.equalsIgnoreCase("UTF-8") then StandardCharsets.UTF_8
          else
            try Charset.forName(name)
            catch case _: IllegalArgumentException => null

  /** Strict decoding: bytes that are not valid in the charset are an error (null), not replacement characters. */
  def decodeOrNull(bytes: Array[Byte], charset: Charset): String | Null =
    if charset == StandardCharsets.UTF_8 then
      // The JDK's own decoding is the fastest (vectorized for ASCII), but lenient: it puts U+FFFD where bytes are
      // invalid. Only text with a U+FFFD in it, rare and never ASCII, is decoded again, strictly, to tell.
      val lenient = new String(bytes, StandardCharsets.UTF_8)
      if lenient.indexOf('\uFFFD') < 0 then lenient else strict(bytes, charset)
    else strict(bytes, charset)

  /** Whether `bytes` are well-formed UTF-8, told by the check WebSocket text is checked with, part by part. */
  def isUtf8(bytes: Array[Byte]): Boolean =
    val check = Utf8Check()
    check.accepts(bytes) && check.complete

  private def strict(bytes: Array[Byte], charset: Charset): String | Null =
    val decoder = charset
      .newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT)
    try decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString
    catch case _: CharacterCodingException => null
