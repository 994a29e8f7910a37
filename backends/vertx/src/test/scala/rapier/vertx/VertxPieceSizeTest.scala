package rapier.vertx

import rapier.testkit.PieceSizes

/** How large the pieces are in which [[VertxServer]] hands a large body to its reader. */
class VertxPieceSizeTest extends munit.FunSuite:
  test("a large body reaches its reader in pieces larger than Vert.x's default 8 KiB, up to MaxChunk"):
    val largest = PieceSizes.largest(VertxServer(_).withPort(0).start(), 8 << 20)
    assert(largest > 8 * 1024, s"the largest piece was $largest bytes")
    assert(largest <= VertxServerOptions.MaxChunk, s"the largest piece was $largest bytes")
