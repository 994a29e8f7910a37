package rapier.client

import rapier.*
import rapier.client.internal.{ClientWebSocket, RequestParts, RequestWriter, ResponseReader}
import rapier.server.Monad

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse, WebSocket, WebSocketHandshakeException}
import java.util.concurrent.{CompletionException, Flow}

/**
 * Calls one endpoint over HTTP: its inputs written into a request as a server reads them, its response read back as
 * its output (`Right`), its error output (`Left`), or a failure of the effect — a [[ClientException]] for a response
 * that is neither, the JDK's `IOException` for a connection that failed. The endpoint is walked once, here; a call
 * costs a walk of its values.
 *
 * @param baseUri
 *   where the server is: `http://localhost:8080`, or with a path the endpoints' paths follow (`https://host/api`)
 */
final class EndpointClient[F[_], S, I, E, O](
    endpoint: Endpoint[S, I, E, O],
    baseUri: String,
    options: ClientOptions,
    transport: ClientTransport
)(using m: Monad[F]):
  private val base = baseUri.stripSuffix("/")
  private val secure = EndpointClient.schemeOf(base) == "https"
  private val securityTree = IOTree.ofInput(endpoint.securityInput)
  private val inputTree = IOTree.ofInput(endpoint.input)
  private val reader = ResponseReader(endpoint.output, endpoint.errorOutput, options.maxResponseSize)
  private val version =
    options.version.getOrElse(if secure then HttpClient.Version.HTTP_2 else HttpClient.Version.HTTP_1_1)
  // Direct style blocks its caller: the JDK's own blocking send, which completes on the caller's thread, spares the
  // hops between pools an asynchronous send takes (a third of a loopback call's time)
  private val direct = m eq Monad.identity
  private val timeout = options.timeout match
    case f: scala.concurrent.duration.FiniteDuration => java.time.Duration.ofNanos(f.toNanos)
    case _ => null

  // A WebSocket endpoint's call opens it, and answers with the pipe its logic would take
  private val outputLeaves = IOTree.ofOutput(endpoint.output).leaves
  private val webSocket = outputLeaves.collectFirst {
    case w: EndpointOutput.WebSocketBody[?, ?, ?] => w
  }
  // How the opened socket becomes the pipe the caller gets: the endpoint's WebSocket kind says, once
  private val toPipe = webSocket.flatMap(_.kind.forClient)

  RequestWriter
    .check(securityTree)
    .orElse(RequestWriter.check(inputTree))
    .orElse(reader.check)
    .orElse(webSocket.flatMap(EndpointClient.unopenable(_, toPipe.isDefined, outputLeaves.size)))
    .foreach(why => throw IllegalArgumentException(s"no client for ${endpoint.show}: $why"))

  /** Calls the endpoint with these security inputs and inputs; the request is made when the effect runs. */
  def apply(security: S, input: I): F[Either[E, O]] =
    m.flatMap(m.unit(())) { _ =>
      val parts = RequestParts()
      RequestWriter.write(securityTree, security, parts)
      RequestWriter.write(inputTree, input, parts)
      if webSocket.isDefined then open(webSocket.get, parts) else exchange(parts)
    }

  private def exchange(parts: RequestParts): F[Either[E, O]] =
    val request = build(parts)
    // Sent once a stream body's producer has started (a `def`: direct style would send at once)
    def sent =
      // What refused the body, if the reader did: the JDK may fail the call with its own "stream cancelled" first
      val refused = java.util.concurrent.atomic.AtomicReference[ClientException | Null]()
      def failure(e: Throwable): Throwable = refused.get match
        case null => unwrapped(e)
        case reader: ClientException => reader
      if direct then
        try m.unit(transport.sendAndWait(request, reader.handler(refused)))
        catch case e: java.io.IOException => throw failure(e)
      else
        // A fiber cancelled while it waits abandons the exchange (the JDK closes its stream or connection)
        m.cancelableAsync[HttpResponse[ResponseReader.Received]] { done =>
          val exchange = transport.send(request, reader.handler(refused))
          exchange.whenComplete { (response, failed) =>
            if failed != null then done(Left(failure(failed))) else done(Right(response))
          }
          () => exchange.cancel(true)
        }
    val started = if parts.start == null then sent else m.flatMap(parts.start.asInstanceOf[F[Unit]])(_ => sent)
    m.flatMap(started) { response =>
      reader.result(response) match
        case Right(value) => m.unit(value.asInstanceOf[Either[E, O]])
        case Left(e) => m.error(e)
    }

  /** Opens the WebSocket: its pipe once the server answered 101, a [[ClientException.WebSocketRefused]] otherwise. */
  private def open(w: EndpointOutput.WebSocketBody[?, ?, ?], parts: RequestParts): F[Either[E, O]] =
    val uri = URI.create("ws" + base.stripPrefix("http") + pathOf(parts) + parts.query)
    val headers = List.newBuilder[(String, String)]
    eachHeader(parts)((name, value) => headers += name -> value)
    val socket = ClientWebSocket(w.in, w.out, w.maxMessageSize)
    m.cancelableAsync { done =>
      val opening = transport.webSocket(uri, headers.result(), socket)
      opening.whenComplete { (_, failure) =>
        if failure == null then
          val opened = socket.pipe.asInstanceOf[Flow.Publisher[Any] => Flow.Publisher[Any]]
          done(Right(Right(toPipe.get(opened).asInstanceOf[O])))
        else
          unwrapped(failure) match
            case refused: WebSocketHandshakeException =>
              done(Left(ClientException.WebSocketRefused(refused.getResponse.statusCode)))
            case other => done(Left(other))
      }
      () => opening.cancel(true)
    }

  private def pathOf(parts: RequestParts): String = if parts.path.length == 0 then "/" else parts.path.toString

  private def build(parts: RequestParts): HttpRequest =
    val builder = HttpRequest.newBuilder(URI.create(base + pathOf(parts) + parts.query))
    val body = parts.body
    val method = parts.method match
      case null => if body == null then "GET" else "POST"
      case name => name.nn
    if body != null then builder.method(method, body.nn)
    else if method == "GET" then builder.GET()
    else if method == "DELETE" then builder.DELETE()
    else builder.method(method, HttpRequest.BodyPublishers.noBody())
    builder.version(version)
    if timeout != null then builder.timeout(timeout)
    eachHeader(parts)(header(builder, _, _))
    builder.build()

  /** The request's headers in order: the options' own, the inputs', then the cookies as one `Cookie`. */
  private def eachHeader(parts: RequestParts)(add: (String, String) => Unit): Unit =
    options.headers.foreach(h => add(h.name, h.value))
    var i = 0
    while i < parts.headers.size do
      add(parts.headers.get(i), parts.headers.get(i + 1))
      i += 2
    if parts.cookies.length > 0 then add("Cookie", parts.cookies.toString)

  // The JDK writes these itself from the request and refuses them from a caller
  private def header(builder: HttpRequest.Builder, name: String, value: String): Unit =
    if !EndpointClient.Restricted.contains(name.toLowerCase) then builder.header(name, value)

  // The JDK's blocking send wraps a failure of the body's reader (a ClientException of Rapier's) in an IOException
  private def unwrapped(e: Throwable): Throwable =
    val cause = e match
      case c: CompletionException if c.getCause != null => c.getCause
      case other => other
    cause match
      case io: java.io.IOException if io.getCause.isInstanceOf[ClientException] => io.getCause
      case other => other

object EndpointClient:
  private[client] val Restricted = Set("connection", "content-length", "expect", "host", "upgrade")

  /** Why a client can't open this WebSocket, if it can't. */
  private def unopenable(w: EndpointOutput.WebSocketBody[?, ?, ?], opens: Boolean, outputs: Int): Option[String] =
    if !opens then Some(s"a WebSocket whose pipe is a ${w.kind.name}, which no client opens")
    else if outputs > 1 then Some("a WebSocket with other outputs beside it")
    else None

  /** `http` or `https`, or a readable failure for a base URI a client can't call. */
  private def schemeOf(base: String): String =
    val uri =
      try URI.create(base)
      catch case _: IllegalArgumentException => null
    val scheme = if uri == null || uri.getHost == null then null else uri.getScheme.toLowerCase
    if scheme != "http" && scheme != "https" || uri.getRawQuery != null || uri.getRawFragment != null then
      throw IllegalArgumentException(
        s"not a base URI a client can call: '$base'; give http(s)://host[:port][/path], e.g. http://localhost:8080"
      )
    scheme.nn

/** How a client's requests reach a server: the JDK's `HttpClient`, or one in memory (the testkit's `StubTransport`). */
trait ClientTransport:
  def send[T](
      request: HttpRequest,
      handler: HttpResponse.BodyHandler[T]
  ): java.util.concurrent.CompletableFuture[HttpResponse[T]]

  /** `send`, its caller waiting for the response. */
  def sendAndWait[T](request: HttpRequest, handler: HttpResponse.BodyHandler[T]): HttpResponse[T] =
    try send(request, handler).get()
    catch case e: java.util.concurrent.ExecutionException if e.getCause != null => throw e.getCause

  /** Where requests go when the caller names no server: a transport in memory has one of its own. */
  def baseUri: String = "http://localhost"

  /** Opens a WebSocket at `uri` (`ws:` or `wss:`) with these headers, its events to `listener`. */
  def webSocket(
      uri: URI,
      headers: List[(String, String)],
      listener: WebSocket.Listener
  ): java.util.concurrent.CompletableFuture[WebSocket] =
    java.util.concurrent.CompletableFuture.failedFuture(
      UnsupportedOperationException("this transport opens no WebSocket")
    )

object ClientTransport:
  /** Over the network, by `client`. */
  def jdk(client: HttpClient): ClientTransport = new ClientTransport:
    def send[T](request: HttpRequest, handler: HttpResponse.BodyHandler[T]) = client.sendAsync(request, handler)
    override def sendAndWait[T](request: HttpRequest, handler: HttpResponse.BodyHandler[T]): HttpResponse[T] =
      client.send(request, handler)
    override def webSocket(uri: URI, headers: List[(String, String)], listener: WebSocket.Listener) =
      val builder = client.newWebSocketBuilder()
      // The JDK writes the handshake's own fields and refuses them from a caller
      for (name, value) <- headers do
        val lower = name.toLowerCase
        if !EndpointClient.Restricted.contains(lower) && !lower.startsWith("sec-websocket-") then
          builder.header(name, value)
      builder.buildAsync(uri, listener)
