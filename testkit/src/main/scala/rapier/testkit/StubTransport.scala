package rapier.testkit

import rapier.client.ClientTransport
import rapier.server.spi.{BodyReceiver, BodySource, ResponseStream}
import rapier.server.ServerResponse

import java.net.URI
import java.net.http.{HttpClient, HttpHeaders, HttpRequest, HttpResponse}
import java.nio.ByteBuffer
import java.util.Optional
import java.util.concurrent.{CompletableFuture, Flow}
import scala.concurrent.{ExecutionContext, Future}
import scala.jdk.CollectionConverters.*
import scala.util.{Failure, Success}

/**
 * A client's calls served in memory by a [[StubServer]]: the request the client would send over the network handed
 * to the stub, and the stub's response read as the network's would be. No socket and no port, so a test of code that
 * calls endpoints runs the real server logic, routing and codecs in a few microseconds.
 * {{{
 * val stub = StubServer(List(bookServer))
 * val getBook = book.client[Future](StubTransport(stub))
 * }}}
 */
final class StubTransport(stub: StubServer[Future]) extends ClientTransport:
  override def baseUri: String = "http://stub"

  def send[T](request: HttpRequest, handler: HttpResponse.BodyHandler[T]): CompletableFuture[HttpResponse[T]] =
    val result = CompletableFuture[HttpResponse[T]]()
    StubTransport.collect(request) {
      case Left(e) => result.completeExceptionally(e)
      case Right(body) =>
        val uri = request.uri
        val target = Option(uri.getRawPath).filter(_.nonEmpty).getOrElse("/") +
          Option(uri.getRawQuery).fold("")("?" + _)
        val headers = request.headers.map.asScala.toList.flatMap((n, vs) => vs.asScala.map(rapier.model.Header(n, _)))
        stub.send(StubRequest(request.method, target, headers, body)).onComplete {
          case Success(response) => StubTransport.respond(request, response, handler, result)
          case Failure(e) => result.completeExceptionally(e)
        }(using ExecutionContext.parasitic)
    }
    result

object StubTransport:
  // The request's body, read whole: a stub request's body is in memory
  private def collect(request: HttpRequest)(k: Either[Throwable, Array[Byte]] => Unit): Unit =
    val publisher = request.bodyPublisher.orElse(null)
    if publisher == null then k(Right(Array.emptyByteArray))
    else
      val out = java.io.ByteArrayOutputStream()
      publisher.subscribe(new Flow.Subscriber[ByteBuffer]:
        def onSubscribe(s: Flow.Subscription): Unit = s.request(Long.MaxValue)
        def onNext(b: ByteBuffer): Unit =
          val bytes = new Array[Byte](b.remaining)
          b.get(bytes)
          out.write(bytes)
        def onError(e: Throwable): Unit = k(Left(e))
        def onComplete(): Unit = k(Right(out.toByteArray)))

  private def respond[T](
      request: HttpRequest,
      response: ServerResponse,
      handler: HttpResponse.BodyHandler[T],
      result: CompletableFuture[HttpResponse[T]]
  ): Unit =
    val headers = HttpHeaders.of(
      response.headers.groupBy(_.name.toLowerCase).map((n, hs) => n -> hs.map(_.value).asJava).asJava,
      (_, _) => true
    )
    val info = Info(response.status, headers)
    val source = response.stream match
      case chunks: ResponseStream.Chunks => chunks.source
      case file: ResponseStream.File =>
        val channel = java.nio.channels.FileChannel.open(file.path)
        try
          val bytes = ByteBuffer.allocate(file.length.toInt)
          channel.read(bytes, file.offset)
          BodySource.of(bytes.array)
        finally channel.close()
      case null => BodySource.of(if response.body == null then Array.emptyByteArray else response.body.nn)
    val subscriber = handler.apply(info)
    subscriber.getBody.whenComplete { (body, failure) =>
      if failure != null then result.completeExceptionally(failure)
      else result.complete(Response(request, response.status, headers, body))
    }
    subscriber.onSubscribe(Feed(source, subscriber))

  /** A body's source fed to the JDK's body subscriber as it asks, each chunk copied (a source's is only lent). */
  private final class Feed(source: BodySource, subscriber: Flow.Subscriber[java.util.List[ByteBuffer]])
      extends Flow.Subscription,
        BodyReceiver:
    private var demand = 0L
    // Whether a pull is outstanding or the loop below runs: one pull at a time
    private var pulling = false
    private var inPull = false
    private var answeredInPull = false
    private var done = false

    def request(n: Long): Unit =
      val start = synchronized {
        demand = if demand + n < 0 then Long.MaxValue else demand + n
        if pulling || done then false
        else
          pulling = true
          true
      }
      if start then loop()

    def cancel(): Unit =
      synchronized { done = true }
      source.cancel()

    // A source that answers within its pull is looped over here, not recursed into
    private def loop(): Unit =
      var more = true
      while more do
        synchronized {
          inPull = true
          answeredInPull = false
        }
        source.pull(this)
        more = synchronized {
          inPull = false
          if !answeredInPull then false
          else if demand > 0 && !done then true
          else
            pulling = false
            false
        }

    def onChunk(chunk: ByteBuffer): Unit =
      val copy = ByteBuffer.allocate(chunk.remaining)
      copy.put(chunk).flip()
      subscriber.onNext(java.util.List.of(copy))
      val resume = synchronized {
        demand -= 1
        if inPull then
          answeredInPull = true
          false
        else if demand > 0 && !done then true
        else
          pulling = false
          false
      }
      if resume then loop()

    def onEnd(): Unit =
      synchronized { done = true }
      subscriber.onComplete()

    def onError(cause: Throwable): Unit =
      synchronized { done = true }
      subscriber.onError(cause)

  private final class Info(status: Int, headers0: HttpHeaders) extends HttpResponse.ResponseInfo:
    def statusCode: Int = status
    def headers: HttpHeaders = headers0
    def version: HttpClient.Version = HttpClient.Version.HTTP_1_1

  private final class Response[T](sent: HttpRequest, status: Int, headers0: HttpHeaders, body0: T)
      extends HttpResponse[T]:
    def statusCode: Int = status
    def request(): HttpRequest = sent
    def previousResponse: Optional[HttpResponse[T]] = Optional.empty
    def headers: HttpHeaders = headers0
    def body: T = body0
    def sslSession: Optional[javax.net.ssl.SSLSession] = Optional.empty
    def uri: URI = sent.uri
    def version: HttpClient.Version = HttpClient.Version.HTTP_1_1
