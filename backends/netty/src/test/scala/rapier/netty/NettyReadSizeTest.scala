package rapier.netty

import rapier.testkit.PieceSizes

/** How much of a large body each of [[NettyServer]]'s reads takes, as its reader sees it. */
class NettyReadSizeTest extends munit.FunSuite:
  test("a large body reaches its reader in pieces larger than Netty's default 64 KiB reads, up to MaxChunk"):
    val largest = PieceSizes.largest(NettyServer(_).withPort(0).start(), 8 << 20)
    assert(largest > 64 * 1024, s"the largest piece was $largest bytes")
    assert(largest <= NettyServerInterpreter.MaxChunk, s"the largest piece was $largest bytes")
