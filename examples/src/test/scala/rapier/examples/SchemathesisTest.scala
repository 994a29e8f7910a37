package rapier.examples

import rapier.netty.NettyServer

import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit
import scala.util.Try

/**
 * Schemathesis (PyPI), a property-based API tester, against the books example as it documents itself: requests made
 * from the OpenAPI document, valid and not, each answer checked against it (a status it doesn't list, a body not of its
 * schema, a valid request refused, a server error). Its three phases run with a fixed seed, so a run is reproducible.
 * `.ci/run` installs it; without it the test is skipped, saying so.
 */
class SchemathesisTest extends munit.FunSuite:
  override val munitTimeout = scala.concurrent.duration.Duration(5, "min")

  private def installed: Boolean = Try(ProcessBuilder("st", "--version").start().waitFor() == 0).getOrElse(false)

  test("schemathesis finds nothing in the books API, with and without the librarian's token"):
    assume(installed, "schemathesis is not installed (pip install schemathesis==4.32.5); .ci/run installs it")
    val binding = NettyServer().withPort(0).addEndpoints(BooksServer().endpointsWithDocs).start()
    try
      val base = s"http://127.0.0.1:${binding.port}"
      for auth <- List(List("-H", s"Authorization: Bearer ${BooksServer.defaultToken}"), Nil) do
        val command = List("st", "--no-color", "run", s"$base/docs/openapi.json", "--url", base, "--seed", "1") ++
          List("--max-examples", "200") ++ auth
        // In a directory of its own: Hypothesis keeps its database where it runs.
        val dir = java.nio.file.Files.createTempDirectory("schemathesis").toFile
        val process = ProcessBuilder(command*).directory(dir).redirectErrorStream(true).start()
        val output = String(process.getInputStream.readAllBytes(), StandardCharsets.UTF_8)
        assert(process.waitFor(4, TimeUnit.MINUTES), "schemathesis did not finish")
        // Without the token, its warning that the changes answered only 401s is what the test expects.
        val allPassed = """(\d+) generated, \1 passed""".r.findFirstMatchIn(output).exists(_.group(1).toInt > 500)
        assert(process.exitValue == 0 && allPassed, output.takeRight(4000))
    finally binding.stop()
