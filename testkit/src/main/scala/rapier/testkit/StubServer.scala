package rapier.testkit

import rapier.model.{Header, Method}
import rapier.server.*
import rapier.server.spi.ServerRequest

import java.net.InetSocketAddress
import java.nio.charset.StandardCharsets
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

/**
 * Serves endpoints in memory, with no network: to test logic and endpoint definitions quickly, exactly as a server
 * would run them (routing, decoding, interceptors, encoding).
 *
 * {{{
 * val stub = StubServer(List(helloServer))
 * val response = stub.send(StubRequest.get("/hello?name=Ada"))
 * }}}
 */
final class StubServer[F[_]](endpoints: List[ServerEndpoint[F]], options: ServerOptions)(using Monad[F]):
  private val interpreter = ServerInterpreter(endpoints, options)

  /** Serves a copy of `request`, so that one request value can be sent any number of times, also concurrently. */
  def send(request: StubRequest): F[ServerResponse] = interpreter(request.copy())

object StubServer:
  /** A stub server with the default options, without the request log. */
  def apply[F[_]: Monad](endpoints: List[ServerEndpoint[F]]): StubServer[F] =
    new StubServer(endpoints, ServerOptions.default.withoutRequestLog)

  def apply[F[_]: Monad](endpoints: List[ServerEndpoint[F]], options: ServerOptions): StubServer[F] =
    new StubServer(endpoints, options)

  extension (stub: StubServer[Future])
    /** Sends a request and waits for the response. */
    def sendAndWait(request: StubRequest, timeout: FiniteDuration = 10.seconds): ServerResponse =
      Await.result(stub.send(request), timeout)

/** A request held in memory, for [[StubServer]]. */
final case class StubRequest(
    methodName: String = "GET",
    uri: String = "/",
    headerList: List[Header] = Nil,
    body: Array[Byte] = Array.emptyByteArray,
    protocol: String = "HTTP/1.1"
) extends ServerRequest:
  def header(name: String, value: String): StubRequest = copy(headerList = headerList :+ Header(name, value))
  def withBody(text: String): StubRequest = copy(body = text.getBytes(StandardCharsets.UTF_8))
  def withBody(bytes: Array[Byte]): StubRequest = copy(body = bytes)

  def method: Method = Method(methodName)
  def headerOrNull(name: String): String | Null = headerList.find(_.is(name)).map(_.value).orNull
  def headerValues(name: String): List[String] = headerList.filter(_.is(name)).map(_.value)
  def headers: List[Header] = headerList
  def remoteAddressOrNull: InetSocketAddress | Null = null

  /** Stub bodies are always in memory. */
  def bodyOrNull: Array[Byte] | Null = body

object StubRequest:
  def get(uri: String): StubRequest = StubRequest("GET", uri)
  def post(uri: String, body: String): StubRequest = StubRequest("POST", uri).withBody(body)
