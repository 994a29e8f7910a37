package rapier.server.internal

import java.net.URI
import java.nio.file.{FileSystems, Files, NoSuchFileException}

/** The size a file response declares, read on the default file system and on another one alike. */
class FileSizeTest extends munit.FunSuite:
  private val dir = FunFixture[java.nio.file.Path](
    _ => Files.createTempDirectory("rapier-size"),
    d => Files.walk(d).sorted(java.util.Comparator.reverseOrder()).forEach(Files.delete)
  )

  dir.test("a file's size, an empty file's 0, and a missing file refused rather than read as empty"): d =>
    val full = Files.write(d.resolve("full.bin"), Array.fill[Byte](1234)(7))
    val empty = Files.createFile(d.resolve("empty.bin"))
    assertEquals(OutputPlan.sizeOf(full), 1234L)
    assertEquals(OutputPlan.sizeOf(empty), 0L)
    val missing = intercept[NoSuchFileException](OutputPlan.sizeOf(d.resolve("missing.bin")))
    assert(missing.getMessage.endsWith("missing.bin"), missing.getMessage)

  dir.test("a file on another file system (a zip's) is sized by that file system"): d =>
    val zip = URI.create(s"jar:${d.resolve("files.zip").toUri}")
    val fs = FileSystems.newFileSystem(zip, java.util.Map.of("create", "true"))
    try
      val inZip = Files.write(fs.getPath("/in.bin"), Array.fill[Byte](99)(1))
      assertEquals(OutputPlan.sizeOf(inZip), 99L)
      intercept[NoSuchFileException](OutputPlan.sizeOf(fs.getPath("/missing.bin")))
    finally fs.close()
