package rapier

import org.scalacheck.{Arbitrary, Gen, Prop}
import org.scalacheck.Prop.forAll
import rapier.model.{PercentEncoding, QueryParams}

import java.time.*
import java.util.UUID

object Generators:
  /** Text made of whole Unicode code points: strings with lone surrogates can't be encoded as UTF-8 by anyone. */
  val text: Gen[String] = Gen
    .listOf(Gen.frequency(
      8 -> Gen.choose(0x20, 0x7e),
      2 -> Gen.choose(0x0, 0xd7ff),
      1 -> Gen.choose(0x10000, 0x10ffff)
    ))
    .map(cps => cps.map(cp => new String(Character.toChars(cp))).mkString)

/** Round trips: whatever a codec encodes, it decodes back to the same value. */
class CodecLawsTest extends munit.ScalaCheckSuite:
  override def scalaCheckTestParameters = super.scalaCheckTestParameters.withMinSuccessfulTests(300)

  private def roundTrip[L, H](codec: Codec[L, H])(value: H): Prop =
    val decoded = codec.decode(codec.encode(value))
    Prop(decoded == DecodeResult.Value(value)) :| s"$value encoded as ${codec.encode(value)} decoded as $decoded"

  val text: Gen[String] = Generators.text

  val instants: Gen[Instant] = Gen.choose(-62135596800L, 253402300799L).flatMap(s =>
    Gen.choose(0, 999999999).map(n => Instant.ofEpochSecond(s, n))
  )

  enum Suit:
    case Hearts, Spades, Clubs, Diamonds

  property("String")(forAll(text)(roundTrip(Codec.string)))
  property("Int")(forAll(roundTrip(Codec.int)))
  property("Long")(forAll(roundTrip(Codec.long)))
  property("Short")(forAll(roundTrip(Codec.short)))
  property("Byte")(forAll(roundTrip(Codec.byte)))
  property("Boolean")(forAll(roundTrip(Codec.boolean)))
  property("Double")(
    forAll(Arbitrary.arbitrary[Double].filter(d => !d.isNaN && !d.isInfinite))(roundTrip(Codec.double))
  )
  property("Float")(forAll(Arbitrary.arbitrary[Float].filter(f => !f.isNaN && !f.isInfinite))(roundTrip(Codec.float)))
  property("BigDecimal")(forAll(roundTrip(Codec.bigDecimal)))
  property("BigInt")(forAll(roundTrip(Codec.bigInt)))
  property("UUID")(forAll(Gen.uuid)(roundTrip(Codec.uuid)))
  property("Instant")(forAll(instants)(roundTrip(Codec.instant)))
  property("LocalDate")(forAll(instants)(i => roundTrip(Codec.localDate)(LocalDate.ofInstant(i, ZoneOffset.UTC))))
  property("LocalDateTime")(forAll(instants)(i =>
    roundTrip(Codec.localDateTime)(LocalDateTime.ofInstant(i, ZoneOffset.UTC))
  ))
  property("LocalTime")(forAll(instants)(i => roundTrip(Codec.localTime)(LocalTime.ofInstant(i, ZoneOffset.UTC))))
  property("OffsetDateTime")(forAll(instants, Gen.choose(-18 * 3600, 18 * 3600)) { (i, offset) =>
    roundTrip(Codec.offsetDateTime)(OffsetDateTime.ofInstant(i, ZoneOffset.ofTotalSeconds(offset)))
  })
  property("Duration")(forAll(Gen.choose(-1000000000L, 1000000000L), Gen.choose(0, 999999999)) { (s, n) =>
    roundTrip(Codec.duration)(Duration.ofSeconds(s, n))
  })
  property("enums")(forAll(Gen.oneOf(Suit.values.toSeq))(roundTrip(summon[Codec[String, Suit]])))

  property("a single query value")(forAll(roundTrip(summon[Codec[List[String], Int]])))
  property("an optional query value")(forAll(roundTrip(summon[Codec[List[String], Option[Long]]])))
  property("repeated query values")(forAll(roundTrip(summon[Codec[List[String], List[Int]]])))
  property("a required cookie")(forAll(roundTrip(summon[Codec[Option[String], Int]])))
  property("an optional cookie")(forAll(roundTrip(summon[Codec[Option[String], Option[UUID]]])))

  property("form fields, through their text")(forAll(Gen.listOf(Gen.zip(text, text))) { fields =>
    roundTrip(Codec.formFields)(QueryParams(fields*))
  })

  property("query strings, through their text")(forAll(Gen.listOf(Gen.zip(text.filter(_.nonEmpty), text))) { params =>
    val q = QueryParams(params*)
    val parsed = QueryParams.parse(q.render)
    Prop(parsed == Right(q)) :| s"${q.render} parsed as $parsed"
  })

  property("percent-encoded path segments")(forAll(text) { s =>
    PercentEncoding.decodeOrNull(PercentEncoding.encodePathSegment(s), plusIsSpace = false) == s
  })

  property("mapped codecs")(forAll { (n: Int) =>
    roundTrip(Codec.int.map(i => (i, i.toString))(_._1))((n, n.toString))
  })
