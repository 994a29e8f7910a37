package rapier.testkit

import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.model.StatusCode
import rapier.server.*
import rapier.testkit.TestModel.*

import java.nio.charset.StandardCharsets
import java.util.Base64
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.Future

/** Authentication inputs, the order security logic runs in, and the 401/403 answers. */
trait SecurityTests extends ServerTestSupport:
  private val token = "s3cr3t-token"

  private val authErrors = oneOf[Unauthorized | Forbidden](
    oneOfVariant(StatusCode.Unauthorized, jsonBody[Unauthorized]),
    oneOfVariant(StatusCode.Forbidden, jsonBody[Forbidden])
  )

  /** Bearer: the right token is the user "ada"; "readonly" is known but may not do this. */
  private val bearerOnly = endpoint.get
    .securityIn(auth.bearer)
    .in("me")
    .errorOut(authErrors)
    .out(stringBody)
    .serverSecurityLogic[String, Future] { t =>
      Future.successful(
        if Secrets.constantTimeEquals(t, token) then Right("ada")
        else if t == "readonly" then Left(Forbidden("read only"))
        else Left(Unauthorized("unknown token"))
      )
    }
    .serverLogicSuccess((user, _) => Future.successful(s"hello $user"))

  private val basic = endpoint.get
    .securityIn(auth.basic.realm("books"))
    .in("basic")
    .errorOut(authErrors)
    .out(stringBody)
    .serverSecurityLogic[String, Future](up =>
      Future.successful(
        if up.username == "ada" && Secrets.constantTimeEquals(up.password, "pä:ss") then Right(up.username)
        else Left(Unauthorized("wrong user or password"))
      )
    )
    .serverLogicSuccess((user, _) => Future.successful(s"hello $user"))

  private def apiKeyEndpoint(name: String, key: EndpointInput.Auth[String]) = endpoint.get
    .securityIn(key)
    .in(name)
    .out(stringBody)
    .serverSecurityLogic[String, Future](k => Future.successful(Right(k)))
    .serverLogicSuccess((k, _) => Future.successful(s"key $k"))

  private val either = endpoint.get
    .securityIn(auth.firstOf(auth.bearer, auth.apiKey(header[String]("X-API-Key")).map(ApiKeyValue(_))(_.key)))
    .in("either")
    .out(stringBody)
    .serverSecurityLogic[String, Future] {
      case ApiKeyValue(k) => Future.successful(Right(s"api key $k"))
      case t: String => Future.successful(Right(s"bearer $t"))
    }
    .serverLogicSuccess((who, _) => Future.successful(who))

  private def basicHeader(user: String, password: String) =
    "Authorization" ->
      ("Basic " + Base64.getEncoder.encodeToString(s"$user:$password".getBytes(StandardCharsets.UTF_8)))

  test("missing bearer credentials are a 401 with a WWW-Authenticate challenge"):
    withServer(bearerOnly) { t =>
      val r = t.get("/me")
      assertEquals(r.status, 401)
      assertEquals(r.headerValues("WWW-Authenticate"), List("Bearer realm=\"api\""))
      assertEquals(r.problem.errors.map(e => (e.location, e.rule)), List(("header.Authorization", "required")))
    }

  test("a valid bearer token reaches the logic with the principal the security logic made"):
    withServer(bearerOnly) { t =>
      val r = t.get("/me", "Authorization" -> s"Bearer $token")
      assertEquals((r.status, r.body), (200, "hello ada"))
      assertEquals(t.get("/me", "Authorization" -> s"bearer $token").status, 200)
    }

  test("credentials the security logic rejects are a 401 with the challenge, or a 403, as the logic says"):
    withServer(bearerOnly) { t =>
      val unknown = t.get("/me", "Authorization" -> "Bearer nope")
      assertEquals((unknown.status, unknown.body), (401, """{"reason":"unknown token"}"""))
      assertEquals(unknown.headerValues("WWW-Authenticate"), List("Bearer realm=\"api\""))
      val forbidden = t.get("/me", "Authorization" -> "Bearer readonly")
      assertEquals((forbidden.status, forbidden.body), (403, """{"reason":"read only"}"""))
      assertEquals(forbidden.headerValues("WWW-Authenticate"), Nil)
    }

  test("credentials of another scheme are missing ones; a malformed bearer token is a 401 naming the format"):
    withServer(bearerOnly) { t =>
      assertEquals(t.get("/me", basicHeader("ada", "x")).status, 401)
      val bad = t.get("/me", "Authorization" -> "Bearer a token with spaces")
      assertEquals(bad.status, 401)
      assertEquals(bad.problem.errors.map(_.rule), List("format"))
      assert(!bad.body.contains("spaces"), bad.body)
    }

  test("HTTP Basic: user and password decoded as UTF-8, the realm in the challenge"):
    withServer(basic) { t =>
      assertEquals(t.get("/basic", basicHeader("ada", "pä:ss")).body, "hello ada")
      val wrong = t.get("/basic", basicHeader("ada", "guess"))
      assertEquals(wrong.status, 401)
      assertEquals(wrong.headerValues("WWW-Authenticate"), List("Basic realm=\"books\", charset=\"UTF-8\""))
      val malformed = t.get("/basic", "Authorization" -> "Basic %%%")
      assertEquals(malformed.status, 401)
      assertEquals(malformed.problem.errors.map(_.expected), List("Basic credentials: base64 of user:password"))
    }

  test("API keys in a header, a query parameter or a cookie"):
    withServer(
      apiKeyEndpoint("h", auth.apiKey(header[String]("X-API-Key"))),
      apiKeyEndpoint("q", auth.apiKey(query[String]("api_key"))),
      apiKeyEndpoint("c", auth.apiKey(cookie[String]("key")))
    ) { t =>
      assertEquals(t.get("/h", "X-API-Key" -> "k1").body, "key k1")
      assertEquals(t.get("/q?api_key=k2").body, "key k2")
      assertEquals(t.get("/c", "Cookie" -> "a=b; key=k3").body, "key k3")
      val missing = t.get("/q")
      assertEquals(missing.status, 401)
      assertEquals(
        missing.headerValues("WWW-Authenticate"),
        List("ApiKey realm=\"api\", in=\"query\", name=\"api_key\"")
      )
      assertEquals(missing.problem.locations, List("query.api_key"))
    }

  test("several schemes on one endpoint: the one presented is used; none is a 401 with every challenge"):
    withServer(either) { t =>
      assertEquals(t.get("/either", "Authorization" -> "Bearer abc").body, "bearer abc")
      assertEquals(t.get("/either", "X-API-Key" -> "k").body, "api key k")
      val none = t.get("/either")
      assertEquals(none.status, 401)
      assertEquals(
        none.headerValues("WWW-Authenticate"),
        List("Bearer realm=\"api\"", "ApiKey realm=\"api\", in=\"header\", name=\"X-API-Key\"")
      )
      assertEquals(none.problem.locations, List("header.Authorization or header.X-API-Key"))
    }

  test("security logic runs before the body is read: a request without credentials costs no body decode"):
    val decoded = AtomicInteger()
    val counting: Schema[Order] =
      Schema.derived[Order].validate(Validator.custom[Order]("counted") { _ => decoded.incrementAndGet(); true })
    val upload =
      given Schema[Order] = counting
      endpoint.post
        .securityIn(auth.bearer)
        .in("upload")
        .in(jsonBody[Order])
        .out(stringBody)
        .serverSecurityLogic[String, Future](t =>
          Future.successful(if t == token then Right(t) else Left(()))
        )
        .serverLogicSuccess((_, o) => Future.successful(o.customer))
    withServer(upload) { t =>
      val body = TestModel.json(order(Line("a", 1, 1)))
      assertEquals(t.post("/upload", body, "Content-Type" -> "application/json").status, 401)
      assertEquals(
        t.post("/upload", body, "Content-Type" -> "application/json", "Authorization" -> "Bearer wrong").status,
        400
      )
      assertEquals(decoded.get, 0)
      val ok = t.post("/upload", body, "Content-Type" -> "application/json", "Authorization" -> s"Bearer $token")
      assertEquals((ok.status, ok.body, decoded.get), (200, "Ada", 1))
    }

/** An API key, told apart from a bearer token by its type. */
final case class ApiKeyValue(key: String)
