package rapier.server.spi

import java.nio.charset.StandardCharsets

class MessageJoinerTest extends munit.FunSuite:
  test("a message is joined from its frames, a text one refused at its first frame that isn't UTF-8"):
    val out = scala.collection.mutable.ListBuffer.empty[String]
    val joiner = MessageJoiner(
      10,
      (bytes, text) => out += s"${if text then "text" else "binary"} ${new String(bytes, StandardCharsets.UTF_8)}",
      (code, _) => out += s"close $code"
    )
    joiner.add("ab".getBytes, text = true, last = false)
    joiner.add(Array(0xc3.toByte), text = false, last = false)
    joiner.add(Array(0xa9.toByte), text = false, last = true)
    joiner.add(Array(0xc3.toByte), text = false, last = true)
    joiner.add("0123456".getBytes, text = true, last = false)
    joiner.add("789a".getBytes, text = true, last = true)
    joiner.add("ok".getBytes, text = true, last = false)
    joiner.add(Array(0xff.toByte), text = true, last = false)
    assertEquals(out.toList, List("text ab\u00e9", "binary \ufffd", "close 1009", "close 1007"))
