import rapier.netty.NettyServer

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}

/** Serves the README's first example (`served`, from ReadmeExample.scala) on a free port and checks its answers. */
@main def check(): Unit =
  val binding = NettyServer().withPort(0).addEndpoint(served).start()
  val client = HttpClient.newHttpClient()
  def get(path: String): (Int, String) =
    val request = HttpRequest.newBuilder(URI.create(s"http://localhost:${binding.port}$path")).build()
    val response = client.send(request, HttpResponse.BodyHandlers.ofString())
    (response.statusCode, response.body)
  try
    val answers = List(
      get("/books/1?lang=fr") -> (200, "Dune (fr)"),
      get("/books/2") -> (404, "no book 2")
    )
    val wrong = answers.filter((got, expected) => got != expected)
    if wrong.nonEmpty then
      wrong.foreach((got, expected) => System.err.println(s"expected $expected, got $got"))
      sys.exit(1)
    val (badStatus, _) = get("/books/x")
    if badStatus != 400 then
      System.err.println(s"expected 400 for /books/x, got $badStatus")
      sys.exit(1)
    println("The README's first example runs on the published artifacts.")
  finally binding.stop()
