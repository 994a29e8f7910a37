package rapier.testkit

import rapier.*
import rapier.server.{Binding, ServerEndpoint, serverLogicSuccess}

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future, blocking}

/** How large the pieces are in which a backend hands a large streamed body to its reader. */
object PieceSizes:
  /**
   * The largest piece of a `bytes`-byte body posted to an endpoint that reads it chunk by chunk, on a server `start`
   * binds. The reader's first pull waits, so that the body queues in the socket and the reads that follow find it
   * full: the pieces are then as large as the backend makes them.
   */
  def largest(start: List[ServerEndpoint[Future]] => Binding, bytes: Int): Int =
    val largest = AtomicInteger()
    val folded = endpoint.post.in("folded").in(chunksBody).out(stringBody).serverLogicSuccess { chunks =>
      Future(blocking(Thread.sleep(300)))(using ExecutionContext.global).flatMap { _ =>
        chunks.fold(0L) { (n, chunk) =>
          largest.accumulateAndGet(chunk.remaining, math.max)
          n + chunk.remaining
        }
      }(using ExecutionContext.parasitic).map(_.toString)(using ExecutionContext.parasitic)
    }
    val binding = start(List(folded))
    try
      val response = TestClient(binding.port).post("/folded", Array.fill[Byte](bytes)(7))
      if response.body != bytes.toString then throw AssertionError(s"the body read was ${response.body} bytes")
      largest.get
    finally binding.stop()
