package rapier

import rapier.model.Utf8Check

import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

class Utf8CheckTest extends munit.FunSuite:
  /** The JDK's strict decoder: what valid UTF-8 is. */
  private def valid(bytes: Array[Byte]): Boolean =
    val decoder = StandardCharsets.UTF_8.newDecoder.onMalformedInput(CodingErrorAction.REPORT)
    try
      decoder.decode(java.nio.ByteBuffer.wrap(bytes))
      true
    catch case _: CharacterCodingException => false

  private def checked(parts: Array[Byte]*): Boolean =
    val check = Utf8Check()
    parts.forall(check.accepts) && check.complete

  test("UTF-8 checked in parts agrees with the JDK's decoder on every sequence of up to three bytes, split anywhere"):
    val leads = (0 to 255).map(_.toByte)
    val seconds = (0x00 :: 0x7f :: (0x80 to 0xc1).toList ::: List(0xc2, 0xdf, 0xe0, 0xf4, 0xf5, 0xff)).map(_.toByte)
    for
      a <- leads
      b <- seconds
      c <- List(0x41, 0x80, 0x9f, 0xa0, 0xbf, 0xc0).map(_.toByte)
      bytes <- List(Array(a), Array(a, b), Array(a, b, c))
      split <- 0 to bytes.length
    do
      val (head, tail) = bytes.splitAt(split)
      assertEquals(checked(head, tail), valid(bytes), bytes.map(x => f"${x & 0xff}%02x").mkString(" "))

  test("UTF-8 in parts: four-byte characters, surrogates and overlong forms, and a bad part told before the end"):
    val samples = List(
      "\ud83d\ude00".getBytes(StandardCharsets.UTF_8) -> true, // U+1F600
      Array(0xf4, 0x8f, 0xbf, 0xbf).map(_.toByte) -> true, // U+10FFFF
      Array(0xf4, 0x90, 0x80, 0x80).map(_.toByte) -> false, // past U+10FFFF
      Array(0xf0, 0x8f, 0xbf, 0xbf).map(_.toByte) -> false, // overlong
      Array(0xed, 0xa0, 0x80).map(_.toByte) -> false, // a surrogate
      Array(0xef, 0xbf, 0xbf).map(_.toByte) -> true, // U+FFFF
      Array(0xf0, 0x9f, 0x98).map(_.toByte) -> false // cut short
    )
    for (bytes, expected) <- samples; split <- 0 to bytes.length do
      val (head, tail) = bytes.splitAt(split)
      assertEquals(checked(head, tail), expected, s"${bytes.toList} at $split")
      assertEquals(valid(bytes), expected)
    val check = Utf8Check()
    assert(check.accepts("caf".getBytes) && check.accepts(Array(0xc3.toByte)) && !check.complete)
    assert(!check.accepts(Array[Byte](0x28)), "a part that can't continue the character is refused at once")
