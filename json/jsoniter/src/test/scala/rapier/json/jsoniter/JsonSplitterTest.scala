package rapier.json.jsoniter

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets

class JsonSplitterTest extends munit.FunSuite:
  /** The values the splitter finds in `text` fed `size` bytes at a time, or the error it reports. */
  private def split(text: String, array: Boolean, size: Int, max: Int = 1 << 20): Either[String, List[String]] =
    val splitter = JsonSplitter(array, max)
    val found = List.newBuilder[String]
    val take = (b: Array[Byte], from: Int, to: Int) =>
      found += new String(b, from, to - from, StandardCharsets.UTF_8)
      ()
    val bytes = text.getBytes(StandardCharsets.UTF_8)
    val errors = bytes.grouped(size).map(p => splitter.feed(ByteBuffer.wrap(p), take)).collectFirst {
      case e: String => e
    }
    // Values found before an error are not checked: the error is.
    errors.orElse(Option(splitter.end(take))).toLeft(found.result())

  private val tricky = """[ {"a":"x]},[\"{","b":[1,{"c":[]}]} ,"s\",]" , 12.5e3,true,null ,[[]],{} ]"""
  private val values =
    List("""{"a":"x]},[\"{","b":[1,{"c":[]}]}""", """"s\",]"""", "12.5e3", "true", "null", "[[]]", "{}")

  test("an array's elements, with brackets and quotes inside strings, cut into chunks of every size"):
    for size <- 1 to tricky.length do assertEquals(split(tricky, array = true, size), Right(values), s"chunks of $size")

  test("values separated by newlines or any whitespace, the last one without a newline"):
    val text = values.mkString("\n") + "\n\n  7"
    for size <- List(1, 2, 3, 7, 1000) do assertEquals(split(text, array = false, size), Right(values :+ "7"))

  test("an empty array, and an empty stream of lines"):
    assertEquals(split(" [ ] ", array = true, 1), Right(Nil))
    assertEquals(split("\n \n", array = false, 1), Right(Nil))

  test("broken framing is an error naming where"):
    assertEquals(split("{}", array = true, 4), Left("expected a JSON array, at byte 0"))
    assertEquals(split("[1 2]", array = true, 4), Left("expected ',' or ']' between array elements, at byte 3"))
    assertEquals(split("[1,]", array = true, 4), Left("unexpected ']', at byte 3"))
    assertEquals(split("[1] 2", array = true, 4), Left("unexpected content after the array, at byte 4"))
    assertEquals(split("[1,2 ", array = true, 4), Left("the stream ends before its array's closing ']', at byte 5"))
    assertEquals(split("""[{"a":1""", array = true, 3), Left("the stream ends inside a value, at byte 7"))
    assertEquals(split("""{"a":"b"} }""", array = false, 3), Left("unexpected '}', at byte 10"))

  test("a value larger than the limit is an error, however it is cut"):
    val big = "[" + "\"" + "x" * 100 + "\"]"
    assert(split(big, array = true, 7, max = 50).left.exists(_.startsWith("a value of the stream is larger than 50")))
    assertEquals(split(big, array = true, 7, max = 200).map(_.size), Right(1))
