package rapier

import rapier.codec.FormCodec
import rapier.model.QueryParams

/** Derivation past the compiler's 32 successive inlines: forty fields, forty cases, thirty-six alternatives. */
class WideDerivationTest extends munit.FunSuite:
  import WideDerivationTest.*

  test("a case class of forty fields derives a schema with every field, in order, each reading its own value"):
    Schema.derived[Forty].schemaType match
      case SchemaType.SProduct(fields) =>
        assertEquals(fields.map(_.name), (0 until 40).map(i => s"f$i").toList)
        val value = Forty(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
          26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39)
        assertEquals(fields.map(_.get(value)), (0 until 40).toList)
      case other => fail(s"not a product: $other")

  test("a form of forty fields derives, and decodes"):
    val form = FormCodec.derived[Forty].fromFields
    val fields = QueryParams(
      "f0" -> "0",
      "f1" -> "1",
      "f2" -> "2",
      "f3" -> "3",
      "f4" -> "4",
      "f5" -> "5",
      "f6" -> "6",
      "f7" -> "7",
      "f8" -> "8",
      "f9" -> "9",
      "f10" -> "10",
      "f11" -> "11",
      "f12" -> "12",
      "f13" -> "13",
      "f14" -> "14",
      "f15" -> "15",
      "f16" -> "16",
      "f17" -> "17",
      "f18" -> "18",
      "f19" -> "19",
      "f20" -> "20",
      "f21" -> "21",
      "f22" -> "22",
      "f23" -> "23",
      "f24" -> "24",
      "f25" -> "25",
      "f26" -> "26",
      "f27" -> "27",
      "f28" -> "28",
      "f29" -> "29",
      "f30" -> "30",
      "f31" -> "31",
      "f32" -> "32",
      "f33" -> "33",
      "f34" -> "34",
      "f35" -> "35",
      "f36" -> "36",
      "f37" -> "37",
      "f38" -> "38",
      "f39" -> "39"
    )
    assertEquals(
      form.decode(fields),
      DecodeResult.Value(Forty(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39))
    )

  test("an enum of forty cases is a string schema of forty names, and a codec of them"):
    val schema = Schema.derived[Letters]
    assertEquals(schema.schemaType, SchemaType.SString)
    assertEquals(schema.validator(Letters.C39), Nil)
    assertEquals(summon[Codec[String, Letters]].decode("C39"), DecodeResult.Value(Letters.C39))

  test("a sealed trait of thirty-six alternatives is a coproduct of each"):
    Schema.derived[Wide].schemaType match
      case SchemaType.SCoproduct(alternatives, _, alternativeOf) =>
        assertEquals(alternatives.flatMap(_.name.map(_.shortName)), (0 until 36).map(i => s"A$i").toList)
        assertEquals(alternativeOf(Wide.A35(1)), 35)
      case other => fail(s"not a coproduct: $other")

object WideDerivationTest:
  final case class Forty(
      f0: Int,
      f1: Int,
      f2: Int,
      f3: Int,
      f4: Int,
      f5: Int,
      f6: Int,
      f7: Int,
      f8: Int,
      f9: Int,
      f10: Int,
      f11: Int,
      f12: Int,
      f13: Int,
      f14: Int,
      f15: Int,
      f16: Int,
      f17: Int,
      f18: Int,
      f19: Int,
      f20: Int,
      f21: Int,
      f22: Int,
      f23: Int,
      f24: Int,
      f25: Int,
      f26: Int,
      f27: Int,
      f28: Int,
      f29: Int,
      f30: Int,
      f31: Int,
      f32: Int,
      f33: Int,
      f34: Int,
      f35: Int,
      f36: Int,
      f37: Int,
      f38: Int,
      f39: Int
  )

  enum Letters:
    case C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17, C18, C19, C20, C21, C22, C23,
      C24, C25, C26, C27, C28, C29, C30, C31, C32, C33, C34, C35, C36, C37, C38, C39

  sealed trait Wide
  object Wide:
    final case class A0(v: Int) extends Wide
    final case class A1(v: Int) extends Wide
    final case class A2(v: Int) extends Wide
    final case class A3(v: Int) extends Wide
    final case class A4(v: Int) extends Wide
    final case class A5(v: Int) extends Wide
    final case class A6(v: Int) extends Wide
    final case class A7(v: Int) extends Wide
    final case class A8(v: Int) extends Wide
    final case class A9(v: Int) extends Wide
    final case class A10(v: Int) extends Wide
    final case class A11(v: Int) extends Wide
    final case class A12(v: Int) extends Wide
    final case class A13(v: Int) extends Wide
    final case class A14(v: Int) extends Wide
    final case class A15(v: Int) extends Wide
    final case class A16(v: Int) extends Wide
    final case class A17(v: Int) extends Wide
    final case class A18(v: Int) extends Wide
    final case class A19(v: Int) extends Wide
    final case class A20(v: Int) extends Wide
    final case class A21(v: Int) extends Wide
    final case class A22(v: Int) extends Wide
    final case class A23(v: Int) extends Wide
    final case class A24(v: Int) extends Wide
    final case class A25(v: Int) extends Wide
    final case class A26(v: Int) extends Wide
    final case class A27(v: Int) extends Wide
    final case class A28(v: Int) extends Wide
    final case class A29(v: Int) extends Wide
    final case class A30(v: Int) extends Wide
    final case class A31(v: Int) extends Wide
    final case class A32(v: Int) extends Wide
    final case class A33(v: Int) extends Wide
    final case class A34(v: Int) extends Wide
    final case class A35(v: Int) extends Wide
