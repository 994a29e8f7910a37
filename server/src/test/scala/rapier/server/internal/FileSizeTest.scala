package rapier.server.internal

import rapier.model.StatusCode
import rapier.server.ServerResponse
import rapier.server.spi.ResponseStream

import java.net.URI
import java.nio.file.{FileSystems, Files, NoSuchFileException, Path}

/** The length and validators a file response declares, read on the default file system and on another one alike. */
class FileSizeTest extends munit.FunSuite:
  private val dir = FunFixture[java.nio.file.Path](
    _ => Files.createTempDirectory("rapier-size"),
    d => Files.walk(d).sorted(java.util.Comparator.reverseOrder()).forEach(Files.delete)
  )

  private def sent(path: Path): ServerResponse =
    val r = ServerResponse(StatusCode.Ok)
    OutputPlan.sendFile(path, r)
    r

  private def length(r: ServerResponse): Long = r.stream match
    case f: ResponseStream.File => f.length
    case other => fail(s"not a file: $other")

  dir.test("a file's size, an empty file's 0, and a missing file refused rather than read as empty"): d =>
    val full = Files.write(d.resolve("full.bin"), Array.fill[Byte](1234)(7))
    val empty = Files.createFile(d.resolve("empty.bin"))
    assertEquals(length(sent(full)), 1234L)
    assertEquals(length(sent(empty)), 0L)
    val missing = intercept[NoSuchFileException](sent(d.resolve("missing.bin")))
    assert(missing.getMessage.endsWith("missing.bin"), missing.getMessage)

  dir.test("a file's validators: a strong tag of its length and time, its time as HTTP writes it"): d =>
    val file = Files.write(d.resolve("dated.bin"), Array.fill[Byte](16)(1))
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_123L))
    val r = sent(file)
    assertEquals(r.header("ETag"), Some("\"10-18bcfe5687b\""))
    assertEquals(r.header("Last-Modified"), Some("Tue, 14 Nov 2023 22:13:20 GMT"))
    val own = ServerResponse(StatusCode.Ok).withHeader("ETag", "\"mine\"")
    OutputPlan.sendFile(file, own)
    assertEquals(own.headers.count(_.is("ETag")), 1)
    assertEquals(own.header("ETag"), Some("\"mine\""))

  dir.test("a file on another file system (a zip's) is sized by that file system"): d =>
    val zip = URI.create(s"jar:${d.resolve("files.zip").toUri}")
    val fs = FileSystems.newFileSystem(zip, java.util.Map.of("create", "true"))
    try
      val inZip = Files.write(fs.getPath("/in.bin"), Array.fill[Byte](99)(1))
      assertEquals(length(sent(inZip)), 99L)
      intercept[NoSuchFileException](sent(fs.getPath("/missing.bin")))
    finally fs.close()
