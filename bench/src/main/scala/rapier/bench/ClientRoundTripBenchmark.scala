package rapier.bench

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import org.openjdk.jmh.annotations.*
import rapier.*
import rapier.client.*
import rapier.json.jsoniter.jsonBody
import rapier.model.PercentEncoding
import rapier.netty.NettyServer
import rapier.server.*

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.util.concurrent.TimeUnit
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

/**
 * One call of a JSON endpoint with a path parameter, a query parameter and a header, through Rapier's client and
 * through the JDK `HttpClient` call one would write by hand for it (the URI built and encoded, the header set, the
 * status checked, the body decoded by the same jsoniter codec). Both block on the same client, against the same
 * Rapier server on Netty over loopback: the difference in time and in bytes allocated per call (`-prof gc`, all
 * threads, the server's equal in both) is what the client interpreter costs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.MICROSECONDS)
class ClientRoundTripBenchmark:
  import ClientRoundTripBenchmark.*

  private var server: NettyServer.Binding = null
  private var base: String = null
  private var call: ((Long, String, String)) => Either[Unit, Book] = null
  private var untimed: ((Long, String, String)) => Either[Unit, Book] = null
  private var future: ((Long, String, String)) => Future[Either[Unit, Book]] = null
  private val http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

  @Setup
  def setup(): Unit =
    val logic = book.serverLogicSuccess[Future]((id, lang, who) => Future.successful(Book(id, s"Dune ($lang)", who)))
    server = NettyServer()
      .withHost("127.0.0.1")
      .withPort(0)
      .modifyOptions(_.modifyServerOptions(_.withoutRequestLog))
      .addEndpoint(logic)
      .start()
    base = s"http://127.0.0.1:${server.port}"
    call = book.client[Identity](base, ClientOptions(http = http))
    untimed = book.client[Identity](base, ClientOptions(http = http, timeout = Duration.Inf))
    future = book.client[Future](base, ClientOptions(http = http))

  @TearDown
  def tearDown(): Unit = server.stop()

  @Benchmark def rapierClient(): Book = call((7L, "fr", "ada")).toOption.get

  /** Without a timeout on the response, which the JDK client arms as a timer on its selector thread. */
  @Benchmark def rapierClientUntimed(): Book = untimed((7L, "fr", "ada")).toOption.get

  /** The `Future` client, waited for: asynchronous as `sendAsync` is, so compared with [[handWrittenAsync]]. */
  @Benchmark def rapierClientFuture(): Book = Await.result(future((7L, "fr", "ada")), 10.seconds).toOption.get

  @Benchmark def handWritten(): Book = decoded(http.send(request(), HttpResponse.BodyHandlers.ofByteArray()))

  /**
   * The hand-written call through `sendAsync`, decoded where the response completes (the `HttpClient`'s threads, as a
   * `Future` client's continuation is), waited for as a `Future` client's caller waits.
   */
  @Benchmark def handWrittenAsync(): Book =
    http.sendAsync(request(), HttpResponse.BodyHandlers.ofByteArray()).thenApply(decoded).get(10, TimeUnit.SECONDS)

  private def request(): HttpRequest =
    val uri = URI.create(
      s"$base/books/${PercentEncoding.encodePathSegment("7")}?lang=${PercentEncoding.encodeQueryComponent("fr")}"
    )
    HttpRequest.newBuilder(uri).GET().header("X-Who", "ada").build()

  private def decoded(response: HttpResponse[Array[Byte]]): Book =
    if response.statusCode != 200 then throw IllegalStateException(s"status ${response.statusCode}")
    readFromArray[Book](response.body)

object ClientRoundTripBenchmark:
  final case class Book(id: Long, title: String, by: String)
  given JsonValueCodec[Book] = JsonCodecMaker.make

  val book: Endpoint[Unit, (Long, String, String), Unit, Book] =
    endpoint.get.in(
      "books" / path[Long]("id")
    ).in(query[String]("lang")).in(header[String]("X-Who")).out(jsonBody[Book])
