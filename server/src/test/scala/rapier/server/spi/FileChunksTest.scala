package rapier.server.spi

import java.nio.ByteBuffer
import java.nio.file.Files

class FileChunksTest extends munit.FunSuite:
  private final class Received extends BodyReceiver:
    var chunk: ByteBuffer | Null = null
    var ended = false
    var failure: Throwable | Null = null
    def onChunk(c: ByteBuffer): Unit = chunk = c
    def onEnd(): Unit = ended = true
    def onError(e: Throwable): Unit = failure = e

  private def readAll(source: BodySource): (Array[Byte], List[ByteBuffer]) =
    val out = java.io.ByteArrayOutputStream()
    var chunks = List.empty[ByteBuffer]
    var done = false
    while !done do
      val r = Received()
      source.pull(r)
      if r.failure != null then throw r.failure.nn
      if r.ended then done = true
      else
        val c = r.chunk.nn
        chunks = c :: chunks
        val bytes = new Array[Byte](c.remaining)
        c.duplicate().get(bytes)
        out.write(bytes)
    (out.toByteArray, chunks.reverse)

  test("a file's range read a chunk per pull, into one buffer or, kept, into one array each"):
    val file = Files.createTempFile("rapier-chunks", ".bin")
    try
      val bytes = Array.tabulate[Byte](50_000)(i => (i % 251).toByte)
      Files.write(file, bytes)
      val reused = ResponseStream.File(file, 1000, 40_000).chunks.source
      val (all, chunks) = readAll(reused)
      assertEquals(all.toSeq, bytes.slice(1000, 41_000).toSeq)
      assertEquals(chunks.size, 3)
      assert(chunks.map(_.array).distinct.size == 1, "one buffer for every chunk")
      assert(!reused.handsOver)
      val kept = ResponseStream.File(file, 0, 50_000).keptChunks.source
      val (whole, own) = readAll(kept)
      assertEquals(whole.toSeq, bytes.toSeq)
      assertEquals(own.map(_.array).distinct.size, own.size, "an array each")
      assert(kept.handsOver)
    finally Files.deleteIfExists(file)

  test("a file gone before the first pull fails it; a cancel closes the file and fails what is pulled after"):
    val missing = ResponseStream.File(java.nio.file.Path.of("/nonexistent/rapier"), 0, 10).chunks.source
    val r = Received()
    missing.pull(r)
    assert(r.failure.isInstanceOf[java.io.IOException], r.failure)
    val file = Files.write(Files.createTempFile("rapier-chunks", ".bin"), new Array[Byte](40_000))
    try
      val source = ResponseStream.File(file, 0, 40_000).chunks.source
      source.pull(Received())
      source.cancel()
      val after = Received()
      source.pull(after)
      assert(after.failure != null)
    finally Files.deleteIfExists(file)
