package rapier.testkit

/** The kit's tests the logic's style can't change run in one class per server, and are ignored, saying where, elsewhere. */
class AnyStyleTest extends munit.FunSuite:
  // Only the tests' names and tags are read: no server starts
  private class Kit(testedIn: Option[String]) extends ServerTests, WebSocketTests:
    def server: TestServer = throw AssertionError("no server starts here")
    override def anyStyleTestedIn: Option[String] = testedIn

  // One of each kind: the server's own layer, the interpreter before and after the logic, the client
  private val anyStyleTests = Set(
    "HTTP/2: floods (rapid reset, CONTINUATION, SETTINGS, PING, empty DATA) end their connection, no other",
    "TLS: a client that never completes its handshake is closed at the head's deadline",
    "while 500 slowloris connections trickle their headers, requests are served, and the deadline closes them all",
    "pings sent by a client that never reads the pongs: the server stops reading, and serves other clients",
    "path captures decode into typed values, in order",
    "a known path with another method is a 405 listing the allowed methods",
    "compression: a decompression bomb (1 GiB decoded) is a 413 at the decoded limit, the heap never near it",
    "client: byte bodies of a MiB, and methods inferred or set"
  )

  // What the logic's style can change: its answer coming later, failing, its streams, a stop while it runs
  private val styleTests = Set(
    "logic that answers later is awaited",
    "logic whose future fails is a 500 with a generic body",
    "pipelined requests are answered in order, even when the first finishes last",
    "stopping under load: every request accepted gets its whole response, later ones 503 or a refusal",
    "a streamed body is read from the connection only as fast as the logic reads it",
    "metrics: a request whose client goes away is counted once and is no longer active",
    "HTTP/2: h2 by ALPN over TLS, for the JDK's client and curl --http2; HTTP/1.1 still served beside it"
  )

  test("a class naming where its any-style tests run ignores those only, saying where"):
    val tests = Kit(Some("rapier.netty.NettyServerTests")).munitTests()
    val ignored = tests.filter(_.tags(munit.Ignore))
    val reason = " (the same whatever the logic's style: tested in rapier.netty.NettyServerTests)"
    for name <- anyStyleTests do assert(ignored.exists(_.name == name + reason), s"$name is not ignored")
    assert(ignored.forall(_.tags(AnyStyle)), ignored.filterNot(_.tags(AnyStyle)).map(_.name))
    val kept = tests.filterNot(_.tags(munit.Ignore)).map(_.name).toSet
    assert(styleTests.subsetOf(kept), styleTests -- kept)
    assert(kept.size >= 60, s"only ${kept.size} tests run with another style's logic")

  test("a class that names no other runs them all"):
    val tests = Kit(None).munitTests()
    assert(tests.forall(t => !t.tags(munit.Ignore)), tests.filter(_.tags(munit.Ignore)).map(_.name))
    assert(anyStyleTests.subsetOf(tests.filter(_.tags(AnyStyle)).map(_.name).toSet))
