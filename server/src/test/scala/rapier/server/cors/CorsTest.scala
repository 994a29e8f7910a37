package rapier.server.cors

/** What `Cors` refuses when it is made: settings a browser would read otherwise than meant. */
class CorsTest extends munit.FunSuite:
  test("credentials with every origin allowed is refused, saying what to do instead"):
    val e = intercept[IllegalArgumentException](Cors.anyOrigin.withCredentials)
    assert(e.getMessage.contains("AllowedOrigins.Only"), e.getMessage)

  test("credentials with origins a function decides need saying so, and a function that allows any origin is refused"):
    val subdomains = AllowedOrigins.Matching(o => o.startsWith("https://") && o.endsWith(".a.example"))
    val unsaid = intercept[IllegalArgumentException](Cors(subdomains).withCredentials)
    assert(unsaid.getMessage.contains("withCredentialsForMatching"), unsaid.getMessage)
    assert(Cors(subdomains).withCredentialsForMatching.credentials)
    for loose <- List(AllowedOrigins.Matching(_ => true), AllowedOrigins.Matching(_.startsWith("https:"))) do
      val e = intercept[IllegalArgumentException](Cors(loose).withCredentialsForMatching)
      assert(e.getMessage.contains("an origin of no one's"), e.getMessage)
    assert(!Cors(AllowedOrigins.Matching(_ => true)).credentials, "without credentials, any function")

  test("exposed and allowed headers must be header names"):
    intercept[IllegalArgumentException](Cors.anyOrigin.withExposedHeaders("X Total"))
    intercept[IllegalArgumentException](Cors.anyOrigin.withHeaders("X-Token:"))

  test("origins are allowed as listed, or as a predicate says"):
    assert(Cors.allowing("https://a.example").origins.allows("https://a.example"))
    assert(!Cors.allowing("https://a.example").origins.allows("https://a.example.evil"))
    val subdomains = AllowedOrigins.Matching(o => o.startsWith("https://") && o.endsWith(".a.example"))
    assert(subdomains.allows("https://x.a.example") && !subdomains.allows("http://x.a.example"))
