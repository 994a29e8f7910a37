package rapier

import org.scalacheck.{Gen, Prop}
import org.scalacheck.Prop.forAll
import rapier.codec.FormCodec
import rapier.model.{Accept, MediaRange, MediaType, QueryParams}

object FormAndAcceptLawsTest:
  final case class Signup(name: String, age: Int, tags: List[String], newsletter: Option[Boolean]) derives FormCodec

/** Properties of form codecs derived for case classes, and of content negotiation. */
class FormAndAcceptLawsTest extends munit.ScalaCheckSuite:
  import FormAndAcceptLawsTest.*

  private val form = summon[FormCodec[Signup]].fromFields
  private val text = Generators.text

  private val signups: Gen[Signup] =
    for
      name <- text
      age <- Gen.choose(Int.MinValue, Int.MaxValue)
      tags <- Gen.listOf(text)
      newsletter <- Gen.option(Gen.oneOf(true, false))
    yield Signup(name, age, tags, newsletter)

  property("a derived form codec decodes what it encodes, through the form's text too"):
    forAll(signups) { s =>
      val fields = form.encode(s)
      val reparsed = QueryParams.parse(fields.render).toOption
      Prop(form.decode(fields) == DecodeResult.Value(s)) &&
      Prop(reparsed.map(form.decode) == Some(DecodeResult.Value(s)))
    }

  property("a form missing any required field reports exactly those fields"):
    forAll(signups, Gen.someOf(List("name", "age"))) { (s, dropped) =>
      val fields = QueryParams(form.encode(s).toList.filterNot((n, _) => dropped.contains(n))*)
      form.decode(fields) match
        case DecodeResult.InvalidValue(errors) =>
          Prop(dropped.nonEmpty) && Prop(errors.map(_.path.head).toSet == dropped.toSet) &&
          Prop(errors.forall(_.rule == "required"))
        case DecodeResult.Value(v) => Prop(dropped.isEmpty && v == s)
        case other => Prop.falsified :| other.toString
    }

  private val offered = IndexedSeq(MediaType.ApplicationJson, MediaType.TextPlain, MediaType.TextHtml)
  private val ranges: Gen[MediaRange] =
    for
      t <- Gen.oneOf("application/json", "text/plain", "text/html", "text/*", "*/*", "image/png", "application/*")
      q <- Gen.oneOf(0.0, 0.1, 0.5, 0.9, 1.0)
    yield
      val Array(main, sub) = t.split('/')
      MediaRange(main, sub, q)

  property("negotiation picks an offer no other offer beats, or none only when nothing is acceptable"):
    forAll(Gen.listOf(ranges)) { rs =>
      def qOf(m: MediaType): Double =
        val matching = rs.filter(_.matches(m))
        if matching.isEmpty then 0.0
        else
          val top = matching.map(_.specificity).max
          matching.filter(_.specificity == top).map(_.q).max
      val chosen = Accept.choose(rs, offered)
      if rs.isEmpty then Prop(chosen == 0)
      else if chosen < 0 then Prop(offered.forall(qOf(_) == 0.0))
      else Prop(qOf(offered(chosen)) > 0 && offered.forall(qOf(_) <= qOf(offered(chosen))))
    }

  test("Accept headers parse leniently: bad entries are skipped, bad q-values count as 1"):
    assertEquals(
      Accept.parse(List("text/html;q=0.5, nonsense, */plain, application/json;q=7", "image/*")),
      List(MediaRange("text", "html", 0.5), MediaRange("application", "json", 1.0), MediaRange("image", "*", 1.0))
    )

  test("Accept: commas and semicolons inside quoted parameters belong to them, and q is read wherever it stands"):
    assertEquals(
      Accept.parse(List("""text/plain;f="a,b;q=0.9";q=0.1, application/json; Q = 0.4 ,, text/html;x="\",v";q=0""")),
      List(MediaRange("text", "plain", 0.1), MediaRange("application", "json", 0.4), MediaRange("text", "html", 0.0))
    )
    // Chosen by those weights: JSON over text, HTML not at all.
    val offered = Vector(MediaType.TextPlain, MediaType.ApplicationJson, MediaType.TextHtml)
    assertEquals(Accept.choose(Accept.parse(List("""text/plain;f="a,b";q=0.1, application/json;q=0.4""")), offered), 1)

  test("Accept: an entry whose quoted string ends the value with a backslash is read to the end, not dropped"):
    assertEquals(
      Accept.parse(List("application/json;q=0.4, text/plain;q=0.2;x=\"a\\")),
      List(MediaRange("application", "json", 0.4), MediaRange("text", "plain", 0.2))
    )
