package rapier.server.cors

/** What `Cors` refuses when it is made: settings a browser would read otherwise than meant. */
class CorsTest extends munit.FunSuite:
  test("credentials with every origin allowed is refused, saying what to do instead"):
    val e = intercept[IllegalArgumentException](Cors.anyOrigin.withCredentials)
    assert(e.getMessage.contains("AllowedOrigins.Only"), e.getMessage)

  test("exposed and allowed headers must be header names"):
    intercept[IllegalArgumentException](Cors.anyOrigin.withExposedHeaders("X Total"))
    intercept[IllegalArgumentException](Cors.anyOrigin.withHeaders("X-Token:"))

  test("origins are allowed as listed, or as a predicate says"):
    assert(Cors.allowing("https://a.example").origins.allows("https://a.example"))
    assert(!Cors.allowing("https://a.example").origins.allows("https://a.example.evil"))
    val subdomains = AllowedOrigins.Matching(o => o.startsWith("https://") && o.endsWith(".a.example"))
    assert(subdomains.allows("https://x.a.example") && !subdomains.allows("http://x.a.example"))
