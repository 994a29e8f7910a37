package rapier.testkit

import rapier.*
import rapier.server.*

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.Future
import scala.jdk.CollectionConverters.*

object MultipartTests:
  final case class Upload(title: String, copies: Int, cover: Part[Path], notes: Option[String], tags: List[String])
      derives MultipartCodec

  /** A part to send: its name, file name, content type and content. */
  final case class Sent(
      name: String,
      content: Array[Byte],
      fileName: Option[String] = None,
      contentType: Option[String] = None
  )

  object Sent:
    def text(name: String, value: String): Sent = Sent(name, value.getBytes(StandardCharsets.UTF_8))

  val boundary = "rapier-boundary-42"

  /** A multipart/form-data body, as a browser would send it. */
  def encode(parts: Sent*): Array[Byte] =
    val out = ByteArrayOutputStream()
    def line(s: String) = out.write((s + "\r\n").getBytes(StandardCharsets.UTF_8))
    parts.foreach { p =>
      line(s"--$boundary")
      line(s"""Content-Disposition: form-data; name="${p.name}"${p.fileName.fold("")(f => s"; filename=\"$f\"")}""")
      p.contentType.foreach(ct => line(s"Content-Type: $ct"))
      line("")
      out.write(p.content)
      out.write("\r\n".getBytes(StandardCharsets.UTF_8))
    }
    line(s"--$boundary--")
    out.toByteArray

/** `multipart/form-data` bodies: parts into case classes, files on disk cleaned up, limits. */
trait MultipartTests extends ServerTestSupport:
  import MultipartTests.*

  private val contentType = "Content-Type" -> s"multipart/form-data; boundary=$boundary"
  private val seen = AtomicReference[Path | Null](null)

  private val upload = endpoint.post
    .in("upload")
    .in(multipartBodyWithLimits[Upload](MultipartLimits(maxPartSize = 6L * 1024 * 1024)))
    .out(stringBody)
    .serverLogicSuccess[Future] { u =>
      seen.set(u.cover.body)
      val bytes = Files.readAllBytes(u.cover.body)
      Future.successful(
        s"${u.title} x${u.copies}: ${u.cover.fileName.getOrElse("?")} ${u.cover.contentType.getOrElse("?")} " +
          s"${bytes.length} bytes, notes ${u.notes.getOrElse("-")}, tags ${u.tags.mkString(",")}"
      )
    }

  private val generic = endpoint.post
    .in("parts")
    .in(multipartBody[Multipart])
    .out(stringBody)
    .serverLogicSuccess[Future] { m =>
      Future.successful(m.parts.map(p => s"${p.name}:${p.body.size}:${p.fileName.isDefined}").mkString(" "))
    }

  private val failing = endpoint.post
    .in("fails")
    .in(multipartBody[Upload])
    .out(stringBody)
    .serverLogicSuccess[Future] { u =>
      seen.set(u.cover.body)
      throw IllegalStateException("after the upload")
    }

  /** Every part as it is; the logic answers with each part's size and a checksum of its content. */
  private val checksums = endpoint.post
    .in("checksums")
    .in(multipartBodyWithLimits[Multipart](MultipartLimits(maxPartSize = 64L * 1024 * 1024, maxInMemorySize = 1000)))
    .out(stringBody)
    .serverLogicSuccess[Future] { m =>
      Future.successful(m.parts.map { p =>
        val bytes = p.body match
          case PartData.InMemory(b) => b
          case PartData.OnDisk(file, _) => Files.readAllBytes(file)
        s"${p.name}:${bytes.length}:${crc(bytes)}"
      }.mkString(" "))
    }

  private def crc(bytes: Array[Byte]): Long =
    val c = java.util.zip.CRC32()
    c.update(bytes)
    c.getValue

  private def rawHead(length: Long): String =
    s"POST /checksums HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=$boundary\r\n" +
      s"Content-Length: $length\r\n\r\n"

  private def partHead(name: String, fileName: String): String =
    s"--$boundary\r\nContent-Disposition: form-data; name=\"$name\"; filename=\"$fileName\"\r\n\r\n"

  private def uploadsLeft(): Int =
    Files.list(Path.of(System.getProperty("java.io.tmpdir"))).iterator.asScala.count(isUpload)

  private def isUpload(file: Path): Boolean =
    val name = file.getFileName
    name != null && name.toString.startsWith("rapier-upload-")

  /**
   * Whether no part's file is open any more (where the descriptors can be read): one deleted but left open holds its
   * disk space, and the directory no longer shows it.
   */
  private def uploadsClosed(): Boolean = !OpenFiles.available || OpenFiles.count(isUpload) == 0

  private val cover = Sent("cover", Array.fill[Byte](3000)(7), Some("cover.png"), Some("image/png"))

  test(anyStyle("parts into a case class: text fields decoded, a file part on disk, optional and repeated parts")):
    withServer(upload) { t =>
      val body = encode(
        Sent.text("title", "Dune"),
        Sent.text("copies", "3"),
        cover,
        Sent.text("tags", "a"),
        Sent.text("tags", "b")
      )
      val r = t.post("/upload", body, contentType)
      assertEquals((r.status, r.body), (200, "Dune x3: cover.png image/png 3000 bytes, notes -, tags a,b"))
      val file = seen.get
      assert(file != null)
      assert(!Files.exists(file.nn), s"$file was not deleted after the request")
    }

  test(anyStyle("all parts as they are, files told apart by their file names")):
    withServer(generic) { t =>
      val r = t.post("/parts", encode(Sent.text("a", "xyz"), cover, Sent("b", Array.emptyByteArray)), contentType)
      assertEquals(r.body, "a:3:false cover:3000:true b:0:false")
    }

  test(anyStyle(
    "a text part is read in the charset its Content-Type names; one the server can't read is a 400 under its name"
  )):
    withServer(upload) { t =>
      val latin1 =
        Sent("title", "Café".getBytes(StandardCharsets.ISO_8859_1), None, Some("text/plain; charset=ISO-8859-1"))
      val r = t.post("/upload", encode(latin1, Sent.text("copies", "1"), cover), contentType)
      assertEquals((r.status, r.body), (200, "Café x1: cover.png image/png 3000 bytes, notes -, tags "))
      val unknown = latin1.copy(contentType = Some("text/plain; charset=x-no-such-charset"))
      val refused = t.post("/upload", encode(unknown, Sent.text("copies", "1"), cover), contentType)
      assertEquals(refused.status, 400)
      assertEquals(
        refused.problem.errors.map(e => (e.location, e.rule, e.expected)),
        List(("body.title", "format", "text in a charset the server can read"))
      )
      eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open")
    }

  test(anyStyle("a large file part goes to disk whole")):
    withServer(upload) { t =>
      val big = Sent("cover", Array.tabulate[Byte](5 * 1024 * 1024)(i => (i % 251).toByte), Some("big.bin"))
      val r = t.post("/upload", encode(Sent.text("title", "T"), Sent.text("copies", "1"), big), contentType)
      assertEquals((r.status, r.body), (200, s"T x1: big.bin ? ${5 * 1024 * 1024} bytes, notes -, tags "))
      eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open after the request")
    }

  test(anyStyle("every field that fails is reported under its name")):
    withServer(upload) { t =>
      val r = t.post("/upload", encode(Sent.text("copies", "many"), cover), contentType)
      assertEquals(r.status, 400)
      assertEquals(
        r.problem.errors.map(e => (e.location, e.rule)),
        List(("body.title", "required"), ("body.copies", "format"))
      )
      assert(!r.body.contains("many"), r.body)
    }

  test(anyStyle("a part over its limit is a 413, and leaves no file behind")):
    val before = uploadsLeft()
    withServer(upload) { t =>
      val huge = Sent("cover", new Array[Byte](6 * 1024 * 1024 + 1), Some("huge.bin"))
      val r = t.post("/upload", encode(Sent.text("title", "T"), Sent.text("copies", "1"), huge), contentType)
      assertEquals(r.status, 413)
      assertEquals(r.problem.errors.map(_.rule), List("maxSize"))
    }
    assertEquals(uploadsLeft(), before)
    eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open")

  test(
    anyStyle("uploads past the server's disk budget are a 503 with Retry-After, leave no file, and the next one fits")
  ):
    val before = uploadsLeft()
    val budget =
      TestServerConfig(serverOptions = ServerOptions.default.withoutRequestLog.withMaxUploadDisk(1024 * 1024))
    withServerConfig(budget)(upload) { t =>
      val big = Sent("cover", new Array[Byte](2 * 1024 * 1024), Some("big.bin"))
      val r = t.post("/upload", encode(Sent.text("title", "T"), Sent.text("copies", "1"), big), contentType)
      assertEquals(r.status, 503)
      assertEquals(r.header("Retry-After"), Some("1"))
      assertEquals(r.problem.detail, "The server holds too many uploads on disk to take this one now")
      eventually(uploadsLeft() == before, "the file written so far is deleted")
      val fits = t.post("/upload", encode(Sent.text("title", "T"), Sent.text("copies", "1"), cover), contentType)
      assertEquals(fits.status, 200, "what the refused upload took is given back")
    }
    eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open")

  test("files are deleted when the logic fails too"):
    withServer(failing) { t =>
      val r = t.post("/fails", encode(Sent.text("title", "T"), Sent.text("copies", "1"), cover), contentType)
      assertEquals(r.status, 500)
      val file = seen.get
      assert(file != null && !Files.exists(file.nn), s"$file was not deleted")
      eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open")
    }

  test(anyStyle("another Content-Type is a 415; no boundary, or a broken body, a 400")):
    withServer(upload) { t =>
      val body = encode(Sent.text("title", "T"))
      assertEquals(t.post("/upload", body, "Content-Type" -> "application/json").status, 415)
      val noBoundary = t.post("/upload", body, "Content-Type" -> "multipart/form-data")
      assertEquals((noBoundary.status, noBoundary.problem.errors.map(_.rule)), (400, List("syntax")))
      val truncated = t.post("/upload", body.take(body.length - 30), contentType)
      assertEquals((truncated.status, truncated.problem.errors.map(_.rule)), (400, List("syntax")))
    }

  test(anyStyle("a file larger than the server's whole-body limit is written to disk as it arrives, never held whole")):
    withServerConfig(TestServerConfig(maxBodySize = 64 * 1024))(checksums) { t =>
      val content = Array.tabulate[Byte](24 * 1024 * 1024)(i => (i * 7 % 251).toByte)
      @volatile var most = 0L
      @volatile var sending = true
      val watcher = Thread(() =>
        while sending do
          most = most.max(t.bodyBytesHeld); Thread.sleep(1)
      )
      watcher.start()
      val r =
        try t.post("/checksums", encode(Sent.text("title", "T"), Sent("file", content, Some("big.bin"))), contentType)
        finally sending = false
      watcher.join()
      assertEquals((r.status, r.body), (200, s"title:1:${crc("T".getBytes)} file:${content.length}:${crc(content)}"))
      assert(most < 1024 * 1024, s"the server held $most bytes of the body at once")
    }

  test(
    anyStyle("a part past its limit is refused as it arrives, before the client has sent the rest, and leaves no file")
  ):
    val before = uploadsLeft()
    withServer(upload) { t =>
      val c = t.raw()
      try
        c.send(rawHead(20L * 1024 * 1024).replace("/checksums", "/upload")).send(partHead("cover", "big.bin"))
        c.send(new Array[Byte](6 * 1024 * 1024 + 64 * 1024))
        val r = c.readResponse()
        assertEquals((r.status, r.problem.errors.map(_.rule)), (413, List("maxSize")))
        assert(c.closedByServer(3000), "the connection of a body left unread closes")
      finally c.close()
      assertEquals(t.get("/nowhere").status, 404)
    }
    eventually(uploadsLeft() == before, "the part's file is deleted")
    eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open")

  test(anyStyle("parts kept in memory are held to their limit together: past it, a 413")):
    withServer(checksums) { t =>
      val fields = encode(Sent.text("a", "x" * 600), Sent.text("b", "y" * 600))
      val r = t.post("/checksums", fields, contentType)
      assertEquals((r.status, r.problem.errors.map(_.rule)), (413, List("maxSize")))
      assert(r.problem.detail.contains("1000"), r.problem.detail)
      val small = t.post("/checksums", encode(Sent.text("a", "x" * 600)), contentType)
      assertEquals(small.body, s"a:600:${crc(("x" * 600).getBytes)}")
    }

  test(anyStyle("a multipart body is held to maxStreamedBodySize as a whole")):
    withServerConfig(TestServerConfig(maxStreamedBodySize = 100000))(checksums) { t =>
      val r = t.post("/checksums", encode(Sent("f", new Array[Byte](200000), Some("f.bin"))), contentType)
      assertEquals(r.status, 413)
      assert(r.problem.detail.contains("100000"), r.problem.detail)
    }

  test(anyStyle("a client that goes away mid-upload leaves no file behind, and the server serves on")):
    val before = uploadsLeft()
    withServer(checksums) { t =>
      val c = t.raw()
      c.send(rawHead(10L * 1024 * 1024)).send(partHead("file", "gone.bin")).send(new Array[Byte](512 * 1024))
      eventually(uploadsLeft() > before, "the part's file is being written")
      c.close()
      eventually(uploadsLeft() == before, "the part's file is deleted once the client is gone")
      eventually(uploadsClosed(), s"${OpenFiles.count(isUpload)} part files still open once the client is gone")
      eventually(t.bodyBytesHeld == 0, "nothing is held once the connection is gone")
      val r = t.post("/checksums", encode(Sent.text("a", "b")), contentType)
      assertEquals(r.body, s"a:1:${crc("b".getBytes)}")
    }
