package rapier.vertx

import rapier.*
import rapier.server.*

import java.io.File
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.util.concurrent.TimeUnit
import scala.concurrent.Future

/**
 * vertx-web is an optional dependency, needed only for `routeHandler`: a server on vertx-core alone must load and
 * serve. Checked in a JVM whose class path has no vertx-web.
 */
class WithoutVertxWebTest extends munit.FunSuite:
  test("VertxServer starts and serves with no vertx-web on the class path"):
    val classpath = System
      .getProperty("java.class.path")
      .split(File.pathSeparator)
      .filterNot(_.contains("vertx-web"))
      .mkString(File.pathSeparator)
    val java = ProcessHandle.current.info.command.orElse("java")
    val process = ProcessBuilder(java, "-cp", classpath, "rapier.vertx.ServeWithoutVertxWeb")
      .redirectErrorStream(true)
      .start()
    assert(process.waitFor(60, TimeUnit.SECONDS), "the check did not finish")
    val output = String(process.getInputStream.readAllBytes)
    assertEquals(process.exitValue, 0, output)
    assert(output.contains("no vertx-web; served: 200 hello"), output)

/** The other JVM of [[WithoutVertxWebTest]]. */
object ServeWithoutVertxWeb:
  def main(args: Array[String]): Unit =
    val absent =
      try
        Class.forName("io.vertx.ext.web.Router")
        false
      catch case _: ClassNotFoundException => true
    val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess(_ => Future.successful("hello"))
    val binding = VertxServer(List(hello)).withPort(0).start()
    try
      val response = HttpClient
        .newHttpClient()
        .send(
          HttpRequest.newBuilder(URI.create(s"http://localhost:${binding.port}/hello")).build(),
          HttpResponse.BodyHandlers.ofString()
        )
      println(
        s"${if absent then "no vertx-web" else "vertx-web present"}; served: ${response.statusCode} ${response.body}"
      )
    finally binding.stop()
