package rapier.server.internal

import rapier.*
import rapier.server.spi.{BodyReceiver, BodySource}

import java.io.IOException
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.util.concurrent.{CompletableFuture, Executors, TimeUnit}

/** The streaming multipart reader: bodies cut at every chunk size, limits as bytes arrive, files and failures. */
class MultipartReaderTest extends munit.FunSuite:
  private val pool = Executors.newFixedThreadPool(2)
  override def afterAll(): Unit = pool.shutdownNow()

  private val boundary = "b0und"

  /**
   * A body in chunks of `chunk` bytes, in one buffer it reuses (direct or on the heap), as a backend may: a reader that
   * kept a chunk past its next pull would read the next one's bytes. Answers on the caller's stack, or on the pool.
   */
  private class Chunked(body: Array[Byte], chunk: Int, direct: Boolean, async: Boolean) extends BodySource:
    @volatile var cancelled = false
    @volatile private var at = 0
    def unread: Int = body.length - at
    private val scratch = if direct then ByteBuffer.allocateDirect(chunk) else ByteBuffer.allocate(chunk)
    def declaredLength: Long = body.length.toLong
    def cancel(): Unit = cancelled = true
    def pull(receiver: BodyReceiver): Unit =
      val answer: Runnable = () =>
        if at >= body.length then receiver.onEnd()
        else
          val n = math.min(chunk, body.length - at)
          scratch.clear()
          scratch.put(body, at, n).flip()
          at += n
          receiver.onChunk(scratch)
      if async then pool.execute(answer) else answer.run()

  private def read(
      body: Array[Byte],
      chunk: Int,
      limits: MultipartLimits = MultipartLimits.default,
      direct: Boolean = false,
      async: Boolean = false,
      toDisk: (String, Option[String]) => Boolean = (_, file) => file.isDefined,
      disk: Long = 1L << 30
  ): (Either[Throwable, Multipart | DecodeResult.Failure], List[Path], Chunked) =
    val source = Chunked(body, chunk, direct, async)
    val files = List.newBuilder[Path]
    val outcome = CompletableFuture[Either[Throwable, Multipart | DecodeResult.Failure]]()
    val executor: java.util.concurrent.Executor = if async then pool else _.run()
    val temporary = TempFiles(disk)
    MultipartReader(
      source,
      boundary.getBytes(UTF_8),
      limits,
      toDisk,
      executor,
      temporary,
      f => files += f,
      outcome.complete(_)
    )
      .start()
    (outcome.get(10, TimeUnit.SECONDS), files.result(), source)

  private def part(name: String, content: Array[Byte], file: Option[String] = None, more: String = ""): Array[Byte] =
    val disposition = s"""Content-Disposition: form-data; name="$name"${file.fold("")(f => s"; filename=\"$f\"")}"""
    (s"--$boundary\r\n$disposition\r\n$more\r\n").getBytes(UTF_8) ++ content ++ "\r\n".getBytes(UTF_8)

  private def closing = s"--$boundary--\r\n".getBytes(UTF_8)

  /** Content full of near misses: CR, LF, dashes and the boundary's own start, cut short. */
  private val tricky = "a\r\n-\r\n--\r\n--b0un\r\r\n--b0unX\r\n\r\n--b0uz-".getBytes(UTF_8)
  private val binary = Array.tabulate[Byte](700)(i => (i * 31 % 256).toByte)

  private val body =
    "preamble, ignored\r\n".getBytes(UTF_8) ++ part("text", tricky) ++
      part("file", binary, Some("a.bin"), "Content-Type: application/octet-stream\r\n") ++
      part("empty", Array.emptyByteArray) ++ part("blank", Array.emptyByteArray, Some("e.txt")) ++ closing

  private def describe(m: Multipart): List[(String, Option[String], Option[String], List[Byte])] =
    m.parts.map { p =>
      val bytes = p.body match
        case PartData.InMemory(b) => b
        case PartData.OnDisk(f, length) =>
          val b = Files.readAllBytes(f)
          assertEquals(b.length.toLong, length)
          b
      (p.name, p.fileName, p.contentType, bytes.toList)
    }

  private val expected = List(
    ("text", None, None, tricky.toList),
    ("file", Some("a.bin"), Some("application/octet-stream"), binary.toList),
    ("empty", None, None, Nil),
    ("blank", Some("e.txt"), None, Nil)
  )

  test("every chunk size gives the same parts, files on disk, from heap and direct buffers"):
    for chunk <- 1 to body.length + 1; direct <- List(false, true) do
      val (outcome, files, _) = read(body, chunk, direct = direct)
      outcome match
        case Right(m: Multipart) =>
          assertEquals(describe(m), expected, s"chunks of $chunk")
          assertEquals(files.length, 2)
        case other => fail(s"chunks of $chunk: $other")
      files.foreach(Files.delete)

  test("answers and file writes on other threads give the same parts"):
    for chunk <- List(1, 7, 64, 333, body.length) do
      val (outcome, files, _) = read(body, chunk, async = true)
      assertEquals(outcome.map { case m: Multipart => describe(m); case f => f }, Right(expected), s"chunks of $chunk")
      files.foreach(Files.delete)

  test("a large file part is written as it arrives, and equals what was sent"):
    val big = Array.tabulate[Byte](3 * 1024 * 1024 + 17)(i => (i % 251).toByte)
    val (outcome, files, _) = read(part("f", big, Some("big")) ++ closing, 16384, async = true)
    val m = outcome.toOption.get.asInstanceOf[Multipart]
    assert(java.util.Arrays.equals(Files.readAllBytes(files.head), big))
    assertEquals(m.parts.head.body.size, big.length.toLong)
    files.foreach(Files.delete)

  test("transport padding after a boundary, a part without headers, and the end right after the closing dashes"):
    val padded = s"--$boundary  \t\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nv\r\n--$boundary--"
    val (outcome, _, _) = read(padded.getBytes(UTF_8), 3)
    assertEquals(
      outcome.map { case m: Multipart => describe(m); case f => f },
      Right(List(("x", None, None, "v".getBytes.toList)))
    )
    val noHeaders = s"--$boundary\r\n\r\nv\r\n--$boundary--".getBytes(UTF_8)
    assertEquals(read(noHeaders, 5)._1, Right(DecodeResult.Malformed("a Content-Disposition with a name in part 1")))

  private def failure(bytes: Array[Byte], limits: MultipartLimits = MultipartLimits.default): Any =
    (for chunk <- List(1, 5, 64, bytes.length) yield
      val (outcome, files, _) = read(bytes, chunk, limits)
      files.foreach(f => assert(!Files.exists(f), s"$f was left behind"))
      outcome.fold(e => e, identity)
    ).distinct match
      case one :: Nil => one
      case many => fail(s"the chunk size changed the outcome: $many")

  test("malformed bodies name what was expected, whatever the chunk size"):
    assertEquals(
      failure("no boundary here".getBytes(UTF_8)),
      DecodeResult.Malformed("a multipart body starting with its boundary")
    )
    assertEquals(
      failure(s"x--$boundary\r\n".getBytes(UTF_8)),
      DecodeResult.Malformed("a multipart body starting with its boundary")
    )
    assertEquals(failure(part("a", "1".getBytes)), DecodeResult.Malformed("part 1 closed by the boundary"))
    assertEquals(
      failure(s"--$boundary\r\nContent-Disposition: form-data; name=\"a\"\r\n".getBytes(UTF_8)),
      DecodeResult.Malformed("the headers of part 1, ended by an empty line")
    )
    assertEquals(
      failure(s"--${boundary}x\r\n".getBytes(UTF_8)),
      DecodeResult.Malformed("a line break after the boundary, at byte 7")
    )
    assertEquals(
      failure(s"--$boundary\r\nno colon\r\n\r\nv\r\n--$boundary--".getBytes(UTF_8)),
      DecodeResult.Malformed("headers of the form 'Name: value' in part 1")
    )
    assertEquals(
      failure(s"--$boundary\r\nContent-Disposition: attachment\r\n\r\nv\r\n--$boundary--".getBytes(UTF_8)),
      DecodeResult.Malformed("a Content-Disposition with a name in part 1")
    )

  test("limits are checked as bytes arrive, and a file written before the failure is deleted"):
    val file = part("f", new Array[Byte](5000), Some("f.bin"))
    assertEquals(failure(file ++ closing, MultipartLimits(maxPartSize = 4999)), DecodeResult.TooLarge(4999))
    assertEquals(
      failure(part("g", new Array[Byte](2000)) ++ closing, MultipartLimits(maxPartSize = 1999)),
      DecodeResult.TooLarge(1999)
    )
    // reading stops at the chunk that passes the limit, and the rest of the body is left unread
    val (_, _, source) = read(file ++ new Array[Byte](100000) ++ closing, 64, MultipartLimits(maxPartSize = 4999))
    assert(source.cancelled && source.unread > 90000, s"read on to ${source.unread} bytes from the end")
    val fields = part("a", new Array[Byte](600)) ++ part("b", new Array[Byte](600)) ++ closing
    assertEquals(failure(fields, MultipartLimits(maxInMemorySize = 1000)), DecodeResult.TooLarge(1000))
    assertEquals(failure(file ++ fields, MultipartLimits(maxParts = 2)), DecodeResult.Error("at most 2 parts"))
    val longHeader = s"--$boundary\r\nContent-Disposition: form-data; name=\"${"n" * 200}\"\r\n\r\n".getBytes(UTF_8)
    assertEquals(
      failure(longHeader, MultipartLimits(maxHeaderSize = 100)),
      DecodeResult.Error("part headers of at most 100 bytes")
    )
    assertEquals(
      failure(("x" * 200 + s"\r\n--$boundary").getBytes(UTF_8), MultipartLimits(maxHeaderSize = 100)),
      DecodeResult.Malformed("a multipart body starting with its boundary")
    )

  test("a body that can't be read fails the reader with its cause, and leaves no file"):
    val cut = part("f", new Array[Byte](3000), Some("f.bin"))
    val files = List.newBuilder[Path]
    val outcome = CompletableFuture[Either[Throwable, Multipart | DecodeResult.Failure]]()
    val source = new BodySource:
      private var sent = false
      def declaredLength: Long = -1
      def cancel(): Unit = ()
      def pull(receiver: BodyReceiver): Unit =
        if sent then receiver.onError(IOException("the client went away"))
        else
          sent = true
          receiver.onChunk(ByteBuffer.wrap(cut))
    MultipartReader(
      source,
      boundary.getBytes(UTF_8),
      MultipartLimits.default,
      (_, _) => true,
      _.run(),
      TempFiles(1L << 30),
      files += _,
      outcome.complete(_)
    )
      .start()
    assertEquals(outcome.get(5, TimeUnit.SECONDS).left.map(_.getMessage), Left("the client went away"))
    assertEquals(files.result().length, 1)
    files.result().foreach(f => assert(!Files.exists(f), s"$f was left behind"))

  test("file parts past the server's disk budget fail the read with a 503, and their files are deleted"):
    val big = part("f", new Array[Byte](100000), Some("big")) ++ closing
    val (outcome, files, _) = read(big, 16384, disk = 50000)
    outcome match
      case Left(e: rapier.server.spi.RequestBodyException) =>
        assertEquals(e.refusal, rapier.server.spi.Refusals.DiskBusy)
        assertEquals(e.refusal.problem.status.code, 503)
      case other => fail(s"read as $other")
    assert(files.forall(f => !Files.exists(f)), "the file written so far is deleted")
    val (fits, kept, _) = read(big, 16384, disk = 200000)
    assert(fits.toOption.get.isInstanceOf[Multipart])
    kept.foreach(Files.delete)

  test("what a file took of the budget is given back when it is deleted, wherever the file went"):
    val temporary = TempFiles(1000)
    val file = temporary.create("budget", ".tmp")
    temporary.take(file, 600)
    val other = temporary.create("other", ".tmp")
    intercept[rapier.server.spi.RequestBodyException](temporary.take(other, 600))
    Files.delete(other)
    val moved = file.resolveSibling(file.getFileName.toString + ".moved")
    Files.move(file, moved)
    temporary.delete(file)
    assertEquals(temporary.held, 0L, "the logic moved the file: it is the logic's now")
    Files.delete(moved)
