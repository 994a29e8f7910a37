package rapier.testkit

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets
import java.time.Duration as JDuration
import scala.jdk.CollectionConverters.*

/** A response as tests look at it. Header names are lower case. */
final case class TestResponse(status: Int, headers: Map[String, List[String]], bytes: Array[Byte]):
  def body: String = new String(bytes, StandardCharsets.UTF_8)

  /** The body as an RFC 9457 problem; fails when it is not one. */
  def problem: ProblemBody = ProblemBody.of(this)
  def header(name: String): Option[String] = headers.get(name.toLowerCase(java.util.Locale.ROOT)).flatMap(_.headOption)
  def headerValues(name: String): List[String] = headers.getOrElse(name.toLowerCase(java.util.Locale.ROOT), Nil)
  override def toString: String = s"TestResponse($status, $headers, ${body.take(200)})"

/** Requests over real sockets with the JDK's client (HTTP/1.1), for everything the client doesn't hide. */
final class TestClient(port: Int):
  private val client = TestClient.shared

  def get(path: String, headers: (String, String)*): TestResponse = send("GET", path, null, headers*)
  def post(path: String, body: Array[Byte] | String, headers: (String, String)*): TestResponse =
    send("POST", path, body, headers*)

  def send(method: String, path: String, body: Array[Byte] | String | Null, headers: (String, String)*): TestResponse =
    val publisher = body match
      case null => HttpRequest.BodyPublishers.noBody()
      case s: String => HttpRequest.BodyPublishers.ofString(s, StandardCharsets.UTF_8)
      case bytes: Array[Byte] => HttpRequest.BodyPublishers.ofByteArray(bytes)
    val builder = HttpRequest.newBuilder(URI.create(s"http://localhost:$port$path")).method(method, publisher)
    headers.foreach((n, v) => builder.header(n, v))
    val response =
      client.send(builder.timeout(JDuration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray())
    TestResponse(
      response.statusCode,
      response.headers.map.asScala.map((k, v) => k.toLowerCase(java.util.Locale.ROOT) -> v.asScala.toList).toMap,
      response.body
    )

object TestClient:
  private lazy val shared: HttpClient =
    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(JDuration.ofSeconds(10)).build()
