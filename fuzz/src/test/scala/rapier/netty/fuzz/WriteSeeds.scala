package rapier.netty.fuzz

import rapier.testkit.MalformedRequests

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

/**
 * Writes the seed inputs of [[HttpBytesFuzzTest]]: a valid request to each fuzzed endpoint, the test kit's legal
 * variations and its malformed requests, so that fuzzing starts from requests that reach every part of the server.
 * Run with `./sbt "fuzz/Test/runMain rapier.netty.fuzz.WriteSeeds"` (it runs in the `fuzz` directory).
 */
object WriteSeeds:
  private val directory = Path.of("src/test/resources/rapier/netty/fuzz/HttpBytesFuzzTestInputs/anyBytes")

  private def request(method: String, target: String, headers: String = "", body: String = ""): String =
    val length = if body.nonEmpty then s"Content-Length: ${body.getBytes(StandardCharsets.UTF_8).length}\r\n" else ""
    s"$method $target HTTP/1.1\r\nHost: x\r\n$headers$length\r\n$body"

  private val valid = List(
    request("GET", "/items/7?limit=3&tag=a&tag=b&flag=true"),
    request("GET", "/users/123e4567-e89b-12d3-a456-426614174000", "X-Count: 2\r\nX-Many: a\r\nCookie: session=s\r\n"),
    request("GET", "/files/a/b%20c/d"),
    request("GET", "/keys/a%2Fb"),
    request("GET", "/range/5?x=1&y=2"),
    request("POST", "/text", "Content-Type: text/plain; charset=UTF-8\r\n", "zażółć"),
    request("POST", "/bytes", "Content-Type: application/octet-stream\r\n", "\u0000\u0001"),
    request("POST", "/form", "Content-Type: application/x-www-form-urlencoded\r\n", "name=Ada&age=36&tags=a"),
    request("POST", "/greet", "Content-Type: application/json\r\n", "\"hi\""),
    request(
      "POST",
      "/orders",
      "Content-Type: application/json\r\n",
      """{"id":1,"customer":"Ada","status":{"type":"Open"},"lines":[{"sku":"a","quantity":1,"price":2.5}]}"""
    ),
    request(
      "POST",
      "/parts",
      "Content-Type: multipart/form-data; boundary=b\r\n",
      "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b--\r\n"
    ),
    request("GET", "/secure", "Authorization: Bearer token\r\n"),
    request("GET", "/basic", "Authorization: Basic dTpw\r\n"),
    "POST /text HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
  )

  def main(args: Array[String]): Unit =
    Files.createDirectories(directory)
    val all = valid.zipWithIndex.map((r, i) => s"valid-$i" -> r) ++
      MalformedRequests.legal.zipWithIndex.map((l, i) => s"legal-$i" -> l.request) ++
      MalformedRequests.all.zipWithIndex.map((c, i) => s"malformed-$i" -> c.request)
    // The first byte picks where the input is split in two writes: a space (32) splits early, which is harmless.
    // Over libFuzzer's default input length (4096), a seed is of no use.
    for (name, request) <- all if request.length <= 4096 do
      Files.write(directory.resolve(name), request.getBytes(StandardCharsets.ISO_8859_1))
    println(s"Wrote the seeds to $directory")
