package rapier.client

import rapier.model.Header

import java.net.http.HttpClient
import scala.concurrent.duration.*

/**
 * How a client calls an endpoint.
 *
 * @param http
 *   the JDK client that sends the requests; one is shared by every client made with the default options
 * @param version
 *   the HTTP version to ask for; by default HTTP/2 over TLS (ALPN, falling back to HTTP/1.1) and HTTP/1.1 on plain
 *   connections, where the JDK would otherwise try an `Upgrade: h2c` on each new connection
 * @param timeout
 *   how long a call waits for its response's status and headers (`Duration.Inf`: as long as it takes)
 * @param headers
 *   headers every call sends, before the endpoint's own
 * @param maxResponseSize
 *   the longest response body a call reads whole (text, bytes, JSON, a file, a problem); past it the call fails with
 *   [[ClientException.ResponseTooLarge]], having read no further. A streamed body is its reader's to bound
 */
final case class ClientOptions(
    http: HttpClient = ClientOptions.sharedHttp,
    version: Option[HttpClient.Version] = None,
    timeout: Duration = 30.seconds,
    headers: List[Header] = Nil,
    maxResponseSize: Long = 10L * 1024 * 1024
):
  require(rapier.isTimeout(timeout), s"timeout must be positive, or Duration.Inf for none: $timeout")
  require(maxResponseSize >= 0, s"maxResponseSize must not be negative: $maxResponseSize")

  def withHttpClient(client: HttpClient): ClientOptions = copy(http = client)
  def withVersion(v: HttpClient.Version): ClientOptions = copy(version = Some(v))
  def withTimeout(t: Duration): ClientOptions = copy(timeout = t)
  def withHeader(name: String, value: String): ClientOptions = copy(headers = headers :+ Header(name, value))
  def withMaxResponseSize(bytes: Long): ClientOptions = copy(maxResponseSize = bytes)

object ClientOptions:
  /** Redirects are not followed: a 3xx is the endpoint's to read, as any other status. */
  lazy val sharedHttp: HttpClient = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()

  val default: ClientOptions = ClientOptions()
