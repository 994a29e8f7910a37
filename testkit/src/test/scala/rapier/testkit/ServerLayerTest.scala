package rapier.testkit

/** The kit's tests of a server's own layer run in one class per server, and are ignored, saying where, in the others. */
class ServerLayerTest extends munit.FunSuite:
  // Only the tests' names and tags are read: no server starts
  private class Kit(testedIn: Option[String]) extends ServerTests, WebSocketTests:
    def server: TestServer = throw AssertionError("no server starts here")
    override def serverLayerTestedIn: Option[String] = testedIn

  private val layerTests = Set(
    "HTTP/2: floods (rapid reset, CONTINUATION, SETTINGS, PING, empty DATA) end their connection, no other",
    "TLS: a client that never completes its handshake is closed at the head's deadline",
    "while 500 slowloris connections trickle their headers, requests are served, and the deadline closes them all",
    "pings sent by a client that never reads the pongs: the server stops reading, and serves other clients"
  )

  test("a class naming where its server's layer is tested ignores those tests only, saying where"):
    val tests = Kit(Some("rapier.netty.NettyServerTests")).munitTests()
    val ignored = tests.filter(_.tags(munit.Ignore))
    val reason =
      " (the server's own layer, the same whatever the logic's style: tested in rapier.netty.NettyServerTests)"
    for name <- layerTests do assert(ignored.exists(_.name == name + reason), s"$name is not ignored")
    assert(ignored.forall(_.tags(ServerLayer)), ignored.filterNot(_.tags(ServerLayer)).map(_.name))
    // The protocols themselves are still served and tested with this style's logic
    val kept = tests.filterNot(_.tags(munit.Ignore)).map(_.name)
    assert(kept.exists(_.startsWith("HTTP/2: h2 by ALPN over TLS")), kept)
    assert(kept.exists(_.startsWith("TLS: endpoints are served over HTTPS")), kept)

  test("a class that names no other runs its server's layer tests"):
    val tests = Kit(None).munitTests()
    assert(tests.forall(t => !t.tags(munit.Ignore)), tests.filter(_.tags(munit.Ignore)).map(_.name))
    assert(layerTests.subsetOf(tests.filter(_.tags(ServerLayer)).map(_.name).toSet))
