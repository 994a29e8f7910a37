package rapier.perf

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** The runs committed under `docs/perf`: small enough to clone, and each still readable by the suite. */
class CommittedRunsTest extends munit.FunSuite:
  private val root = Path.of("../../docs/perf")

  private def files: List[Path] =
    val stream = Files.walk(root)
    try stream.iterator.asScala.filter(Files.isRegularFile(_)).toList
    finally stream.close()

  test("docs/perf stays under 20 MB and holds no charts, flame graphs or uncompressed results"):
    val total = files.map(Files.size).sum
    assert(total < 20L * 1024 * 1024, s"docs/perf holds ${total / 1024 / 1024} MB")
    val bulky = files.map(root.relativize(_).toString).filter(f =>
      f.endsWith(".html") || f.endsWith(".collapsed") || f.endsWith("results.json")
    )
    assertEquals(bulky, Nil, "commit results.json and collapsed stacks gzipped, and no report.html")

  // The WebSocket and SSE latency studies wrote their samples as a bare array, not as a run.
  private def isRun(file: Path): Boolean =
    val in = java.util.zip.GZIPInputStream(Files.newInputStream(file))
    try in.read() == '{'
    finally in.close()

  test("every committed run's results.json.gz reads back"):
    val results = files.filter(_.getFileName.toString == "results.json.gz").filter(isRun)
    assert(results.size > 100, results.size)
    for file <- results do assert(RunResults.read(file).isRight, s"$file: ${RunResults.read(file)}")
