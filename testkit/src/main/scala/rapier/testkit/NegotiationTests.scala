package rapier.testkit

import com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import rapier.*
import rapier.codec.FormCodec
import rapier.json.jsoniter.jsonBody
import rapier.server.*

import scala.concurrent.Future

object NegotiationTests:
  final case class Greeting(text: String)
  given JsonValueCodec[Greeting] = JsonCodecMaker.make
  given Codec[String, Greeting] = Codec.string.map(Greeting(_))(_.text)

  final case class Signup(name: String, age: Int, tags: List[String], newsletter: Option[Boolean]) derives FormCodec

/** Bodies in several representations chosen by `Accept` and `Content-Type`, and forms read into case classes. */
trait NegotiationTests extends ServerTestSupport:
  import NegotiationTests.{*, given}

  private val greeting = oneOfBody(jsonBody[Greeting], plainBody[Greeting])

  private val greet = endpoint.get
    .in("greet")
    .out(greeting)
    .serverLogicSuccess[Future](_ => Future.successful(Greeting("hi")))

  private val echo = endpoint.post
    .in("greet")
    .in(greeting)
    .out(stringBody)
    .serverLogicSuccess[Future](g => Future.successful(g.text))

  private val signup = endpoint.post
    .in("signup")
    .in(formBody[Signup])
    .out(stringBody)
    .serverLogicSuccess[Future](s => Future.successful(s.toString))

  private val form = "Content-Type" -> "application/x-www-form-urlencoded"

  test(anyStyle("without Accept, the first representation")):
    withServer(greet) { t =>
      val r = t.get("/greet")
      assertEquals((r.status, r.header("Content-Type"), r.body), (200, Some("application/json"), """{"text":"hi"}"""))
    }

  test(anyStyle("Accept chooses the representation, q-values and wildcards considered")):
    withServer(greet) { t =>
      def typeFor(accept: String) = t.get("/greet", "Accept" -> accept).header("Content-Type")
      assertEquals(typeFor("text/plain"), Some("text/plain; charset=UTF-8"))
      assertEquals(t.get("/greet", "Accept" -> "text/plain").body, "hi")
      assertEquals(typeFor("application/json;q=0.5, text/plain;q=0.9"), Some("text/plain; charset=UTF-8"))
      assertEquals(typeFor("text/*"), Some("text/plain; charset=UTF-8"))
      assertEquals(typeFor("*/*"), Some("application/json"))
      assertEquals(typeFor("text/plain;q=0, */*"), Some("application/json"))
      assertEquals(typeFor("image/png, text/html;q=0.1, application/*"), Some("application/json"))
      // A comma or a q inside a quoted parameter is the parameter's: text keeps its 0.1, and JSON's 0.4 wins.
      assertEquals(typeFor("""text/plain;f="a,b;q=1";q=0.1, application/json;q=0.4"""), Some("application/json"))
    }

  test(anyStyle("no acceptable representation is a 406 naming those there are")):
    withServer(greet) { t =>
      val r = t.get("/greet", "Accept" -> "image/png")
      assertEquals(r.status, 406)
      assert(r.problem.detail.contains("application/json, text/plain"), r.body)
    }

  test(anyStyle("a request body is read by the representation its Content-Type names; another is a 415")):
    withServer(echo) { t =>
      assertEquals(t.post("/greet", """{"text":"json"}""", "Content-Type" -> "application/json").body, "json")
      assertEquals(t.post("/greet", "plain", "Content-Type" -> "text/plain; charset=UTF-8").body, "plain")
      val other = t.post("/greet", "<x/>", "Content-Type" -> "application/xml")
      assertEquals(other.status, 415)
      assertEquals(other.problem.errors.map(_.expected), List("application/json or text/plain"))
    }

  test(anyStyle("a form into a case class: each field by its type's codec, repeats into lists, options may be absent")):
    withServer(signup) { t =>
      val r = t.post("/signup", "name=Ada+L&age=36&tags=a&tags=b%26c", form)
      assertEquals((r.status, r.body), (200, "Signup(Ada L,36,List(a, b&c),None)"))
      assertEquals(t.post("/signup", "age=1&name=x&newsletter=true", form).body, "Signup(x,1,List(),Some(true))")
    }

  test(anyStyle("a form reports every field that fails, under its name, without echoing values")):
    withServer(signup) { t =>
      val r = t.post("/signup", "age=old&newsletter=maybe&newsletter=no", form)
      assertEquals(r.status, 400)
      assertEquals(
        r.problem.errors.map(e => (e.location, e.rule)),
        List(("body.name", "required"), ("body.age", "format"), ("body.newsletter", "single"))
      )
      assert(!r.body.contains("old") && !r.body.contains("maybe"), r.body)
    }
