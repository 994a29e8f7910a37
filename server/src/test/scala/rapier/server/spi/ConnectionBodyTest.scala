package rapier.server.spi

import java.nio.ByteBuffer

/** A connection's body as its readers see it when the request ends under them: no chunk let go while read. */
class ConnectionBodyTest extends munit.FunSuite:
  /** A chunk of the test's own: its bytes, and whether the body has let it go. */
  private final class Chunk(val bytes: Array[Byte]):
    var released = false

  private val loop = new EventLoop:
    def inLoop: Boolean = true
    def execute(task: Runnable): Unit = task.run()

  private final class Body extends ConnectionBody[Chunk](loop, -1L, Long.MaxValue, BodyBudget(1L << 30)):
    protected def size(chunk: Chunk): Int = chunk.bytes.length
    protected def view(chunk: Chunk): ByteBuffer = ByteBuffer.wrap(chunk.bytes)
    protected def release(chunk: Chunk): Unit = chunk.released = true
    protected def read(on: Boolean): Unit = ()

  /** A reader that keeps each chunk: reading it off the loop (`offLoop`), or done with it as `onChunk` returns. */
  private final class Reader(offLoop: Boolean) extends BodyReceiver:
    var chunks = 0
    var failure: Throwable | Null = null
    def onChunk(chunk: ByteBuffer): Unit = chunks += 1
    def onEnd(): Unit = ()
    def onError(cause: Throwable): Unit = failure = cause
    override def revoke(): Boolean = !offLoop

  test("a chunk read off the loop is let go at its reader's next pull, not under it when the request ends"):
    val body = Body()
    val reader = Reader(offLoop = true)
    val first = Chunk(Array[Byte](1, 2, 3))
    body.arrived(first)
    body.pull(reader)
    assertEquals(reader.chunks, 1)
    body.discard()
    assert(!first.released, "let go while its reader may still read it")
    body.pull(reader)
    assert(first.released, "let go once the reader came back")
    assert(reader.failure != null, "the reader hears the body is gone")

  test("a chunk read off the loop is let go when its reader cancels instead"):
    val body = Body()
    val chunk = Chunk(Array[Byte](1))
    body.arrived(chunk)
    body.pull(Reader(offLoop = true))
    body.discard()
    assert(!chunk.released)
    body.cancel()
    assert(chunk.released)

  test("a reader done with each chunk as it returns has it let go when the request ends"):
    val body = Body()
    val chunk = Chunk(Array[Byte](1))
    body.arrived(chunk)
    body.pull(Reader(offLoop = false))
    body.discard()
    assert(chunk.released)

  test("an InputStream taken back mid-chunk fails its next read rather than reading a chunk let go"):
    val body = Body()
    val chunk = Chunk(Array.fill[Byte](100)(7))
    body.arrived(chunk)
    val in = rapier.server.internal.BodyInputStream(body)
    assertEquals(in.read(), 7)
    body.discard()
    assert(chunk.released, "the stream gave it back at once")
    intercept[java.io.IOException](in.read(new Array[Byte](10)))
