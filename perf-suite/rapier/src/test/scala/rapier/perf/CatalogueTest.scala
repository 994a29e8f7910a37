package rapier.perf

class CatalogueTest extends munit.FunSuite:
  test("globs match names, dots and all"):
    assert(Glob.matches("netty.*", "netty.future.Rapier"))
    assert(!Glob.matches("netty.*", "netty41.Vanilla"))
    assert(Glob.matches("*.Vanilla", "netty41.Vanilla"))
    assert(Glob.matches("netty.future.Rapier*", "netty.future.RapierMulti"))
    assert(Glob.matches("netty4?.Vanilla", "netty41.Vanilla"))
    assert(!Glob.matches("Simple", "SimpleGet"))

  test("selecting a library server brings its vanilla twin"):
    assertEquals(
      Catalogue.select(List("netty.future.Tapir")).map(_.name),
      List("netty41.Vanilla", "netty.future.Tapir")
    )
    assertEquals(
      Catalogue.select(List("*.Vanilla")).map(_.name),
      List(
        "netty.Vanilla",
        "vertx.Vanilla",
        "netty.sync.Vanilla",
        "http4s.Vanilla",
        "pekko.Vanilla",
        "netty41.Vanilla",
        "vertx4.Vanilla",
        "ziohttp.Vanilla"
      )
    )
    assertEquals(
      Catalogue.select(List("vertx.future.Tapir*")).map(_.name),
      List(
        "vertx4.Vanilla",
        "vertx4.VanillaMulti",
        "vertx.future.Tapir",
        "vertx.future.TapirMulti",
        "vertx.future.TapirLog"
      )
    )
    assertEquals(
      Catalogue.select(List("vertx.future.RapierMulti")).map(_.name),
      List("vertx.VanillaMulti", "vertx.future.RapierMulti")
    )

  test("every twin exists, on the same side (or a stack both sides run), with the same number of routes"):
    for s <- Catalogue.servers; t <- s.twin do
      val twin = Catalogue.byName(t).getOrElse(fail(s"$t is not in the catalogue"))
      val side = if Catalogue.sharedStacks.contains(t) then s.side else twin.side
      assertEquals((side, twin.routes, twin.isVanilla), (s.side, s.routes, true), s.name)

  test("the multi-route scenario is for servers with 128 routes only"):
    val multi = Scenarios.byName("SimpleGetMultiRoute").get
    assertEquals(Catalogue.servers.filter(multi.servable).map(_.name).map(_.contains("Multi")).distinct, List(true))
