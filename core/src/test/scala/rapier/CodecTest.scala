package rapier

import rapier.codec.{AllValues, OptionalValue, SingleValue}
import rapier.model.MediaType

class CodecTest extends munit.FunSuite:
  import DecodeResult.*

  test("integers: anything but an optional sign and digits, or a whole number, is an error that doesn't repeat it"):
    for bad <- List("", " 1", "1 ", "1.5", "0x10", "abc", "1e-3", "--1", "+", "１２", "1.0.0", "1e") do
      Codec.int.decode(bad) match
        case Error(expected, _) => assertEquals(expected, "an integer between -2147483648 and 2147483647")
        case other => fail(s"'$bad' decoded as $other")
    assertEquals(Codec.int.decode("+42"), Value(42))
    assertEquals(Codec.int.decode("-2147483648"), Value(Int.MinValue))

  test("a whole number written with a fraction or an exponent is the integer JSON Schema calls it"):
    assertEquals(Codec.int.decode("-12537.0"), Value(-12537))
    assertEquals(Codec.int.decode("1e3"), Value(1000))
    assertEquals(Codec.long.decode("25.00E1"), Value(250L))
    assertEquals(Codec.byte.decode("127.0"), Value(127.toByte))
    assert(Codec.byte.decode("128.0").isInstanceOf[Error])
    assertEquals(Codec.bigInt.decode("-1.5e2"), Value(BigInt(-150)))
    // An exponent too large to write out is refused at once, not expanded.
    assert(Codec.int.decode("1e999999999").isInstanceOf[Error])
    assert(Codec.bigInt.decode("1e999999999").isInstanceOf[Error])
    val inPath = Codec.int.asInstanceOf[rapier.codec.RangeDecoder].rawDecodeRange("/x/2.0/y", 3, 6)
    assertEquals[Any, Any](inPath, 2)

  test("integers out of range are errors"):
    assert(Codec.int.decode("2147483648").isInstanceOf[Error])
    assert(Codec.byte.decode("128").isInstanceOf[Error])
    assert(Codec.short.decode("-32769").isInstanceOf[Error])
    assert(Codec.long.decode("9223372036854775808").isInstanceOf[Error])
    assertEquals(Codec.long.decode("9223372036854775807"), Value(Long.MaxValue))

  test("each integral type decodes to itself, whole or from a range of a larger string"):
    val cases: List[(Codec[String, ?], String, Class[?])] = List(
      (Codec.byte, "-128", classOf[java.lang.Byte]),
      (Codec.short, "32767", classOf[java.lang.Short]),
      (Codec.int, "-2147483648", classOf[java.lang.Integer]),
      (Codec.long, "9223372036854775807", classOf[java.lang.Long])
    )
    for (codec, text, boxed) <- cases do
      codec.decode(text) match
        case Value(v) => assertEquals[Any, Any]((v.toString, v.getClass), (text, boxed))
        case other => fail(s"$text: $other")
      val inPath = codec.asInstanceOf[rapier.codec.RangeDecoder].rawDecodeRange(s"/x/$text/y", 3, 3 + text.length)
      assertEquals[Any, Any]((inPath.toString, inPath.getClass), (text, boxed))

  test("booleans ignore case; nothing else is a boolean"):
    assertEquals(Codec.boolean.decode("TRUE"), Value(true))
    assertEquals(Codec.boolean.decode("False"), Value(false))
    assertEquals(Codec.boolean.decode("yes"), Error("true or false"))
    assertEquals(Codec.boolean.decode("1"), Error("true or false"))

  test("floating point numbers must be finite"):
    for bad <- List("NaN", "Infinity", "-Infinity", "1e999") do
      assert(Codec.double.decode(bad).isInstanceOf[Error], bad)
    assertEquals(Codec.double.decode("-1.5e3"), Value(-1500.0))

  test("big numbers are bounded: 308 digits, a decimal's exponent within 6178, as JSON's are"):
    for bad <- List("1e999999999", "1e-6179", "9" * 309, "0." + "1" * 309, "1" * 100000) do
      assert(Codec.bigDecimal.decode(bad).isInstanceOf[Error], bad.take(20))
    for bad <- List("9" * 309, "-" + "9" * 309, "1.5", "1e999") do
      assert(Codec.bigInt.decode(bad).isInstanceOf[Error], bad.take(20))
    assertEquals(Codec.bigDecimal.decode("1e6178"), Value(BigDecimal("1e6178")))
    assertEquals(Codec.bigDecimal.decode("-12.50"), Value(BigDecimal("-12.50")))
    assertEquals(Codec.bigInt.decode("-" + "9" * 308), Value(BigInt("-" + "9" * 308)))

  test("UUIDs must be in the canonical 36-character form"):
    assert(Codec.uuid.decode("1-2-3-4-5").isInstanceOf[Error])
    assert(Codec.uuid.decode("123e4567-e89b-12d3-a456-42661417400").isInstanceOf[Error])
    assert(Codec.uuid.decode("123e4567-e89b-12d3-a456-426614174000").isInstanceOf[Value[?]])

  test("dates say what form they expect"):
    Codec.localDate.decode("31/01/2024") match
      case Error(expected, Some(_)) => assertEquals(expected, "an ISO-8601 date, e.g. 2024-01-31")
      case other => fail(other.toString)

  test("single, optional and repeated values from a list"):
    val single = summon[Codec[List[String], Int]]
    assert(single.isInstanceOf[SingleValue[?]])
    assertEquals(single.decode(Nil), Missing)
    assertEquals(single.decode(List("1", "2")), Multiple(2))
    val optional = summon[Codec[List[String], Option[Int]]]
    assert(optional.isInstanceOf[OptionalValue[?]])
    assertEquals(optional.decode(Nil), Value(None))
    assertEquals(optional.decode(List("x")), Error("an integer between -2147483648 and 2147483647"))
    val all = summon[Codec[List[String], List[Int]]]
    assert(all.isInstanceOf[AllValues[?]])
    assertEquals(all.decode(List("1", "x")), Error("an integer between -2147483648 and 2147483647"))

  test("validating a single value keeps the codec recognisable and checks the value"):
    val c = summon[Codec[List[String], Int]].validate(Validator.min(1))
    assert(c.isInstanceOf[SingleValue[?]])
    assertEquals(c.decode(List("0")), InvalidValue(List(ValidationError("minimum", "at least 1"))))
    assertEquals(c.decode(List("1")), Value(1))

  test("validation reports every broken rule"):
    val c = Codec.string.validate(Validator.minLength(5)).validate(Validator.pattern("[a-z]+"))
    c.decode("AB") match
      case InvalidValue(errors) => assertEquals(errors.map(_.rule), List("minLength", "pattern"))
      case other => fail(other.toString)

  test("validators run after the mapping they are attached to"):
    val c = Codec.int.map(_ * 2)(_ / 2).validate(Validator.max(10))
    assertEquals(c.decode("5"), Value(10))
    assert(c.decode("6").isInstanceOf[InvalidValue])

  test("mapEither turns Left into an error naming the expected form"):
    val even = Codec.int.mapEither(i => if i % 2 == 0 then Right(i) else Left("an even number"))(identity)
    assertEquals(even.decode("3"), Error("an even number"))
    assertEquals(even.decode("4"), Value(4))

  test("enumerations prefer exact names and list the allowed ones"):
    val c = Codec.enumerationOf(List("a", "A", "b"), identity[String])
    assertEquals(c.decode("A"), Value("A"))
    assertEquals(c.decode("B"), Value("b"))
    assertEquals(c.decode("c"), Error("one of: a, A, b"))

  test("codecs carry the media type of what they write"):
    assertEquals(Codec.byteArray.mediaType, MediaType.ApplicationOctetStream)
    assertEquals(Codec.textPlain(java.nio.charset.StandardCharsets.UTF_8).mediaType.render, "text/plain; charset=UTF-8")
    assertEquals(Codec.formFields.mediaType, MediaType.ApplicationXWwwFormUrlencoded)

  test("a Map form refuses repeated fields without naming them"):
    val c = codec.FormCodec.map.fromFields
    assertEquals(c.decode(model.QueryParams("a" -> "1", "a" -> "2")), Error("each form field at most once"))
