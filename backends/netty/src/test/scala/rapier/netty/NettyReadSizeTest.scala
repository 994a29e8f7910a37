package rapier.netty

import rapier.*
import rapier.server.serverLogicSuccess
import rapier.testkit.TestClient

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future, blocking}

/** How much of a large body each of [[NettyServer]]'s reads takes, as its reader sees it. */
class NettyReadSizeTest extends munit.FunSuite:
  test("a large body reaches its reader in pieces larger than Netty's default 64 KiB reads, up to MaxChunk"):
    val largest = AtomicInteger()
    val folded = endpoint.post.in("folded").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      // The first pull waits, so that the body queues in the socket and the reads that follow find it full.
      Future(blocking(Thread.sleep(300)))(using ExecutionContext.global).flatMap { _ =>
        chunks.fold(0L) { (n, chunk) =>
          largest.accumulateAndGet(chunk.remaining, math.max)
          n + chunk.remaining
        }
      }(using ExecutionContext.parasitic).map(_.toString)(using ExecutionContext.parasitic)
    }
    val binding = NettyServer(List(folded)).withPort(0).start()
    try
      val size = 8 << 20
      val response = TestClient(binding.port).post("/folded", Array.fill[Byte](size)(7))
      assertEquals(response.body, size.toString)
      assert(largest.get > 64 * 1024, s"the largest piece was ${largest.get} bytes")
      assert(largest.get <= NettyServerInterpreter.MaxChunk, s"the largest piece was ${largest.get} bytes")
    finally binding.stop()
