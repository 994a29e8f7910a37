package rapier.bench

import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.channel.embedded.EmbeddedChannel
import io.netty.channel.{ChannelHandlerContext, SimpleChannelInboundHandler}
import io.netty.handler.codec.http.*
import io.netty.util.ReferenceCountUtil
import org.openjdk.jmh.annotations.*
import cats.effect.IO
import cats.effect.unsafe.IORuntime
import rapier.*
import rapier.cats.{CatsRunner, catsMonad}
import rapier.netty.{NettyServerInterpreter, NettyServerOptions}
import rapier.server.*

import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit
import scala.concurrent.Future
import scala.concurrent.duration.Duration

/**
 * A whole HTTP exchange through Netty's pipeline, without sockets: request bytes in, response bytes out. Once with
 * Rapier's handler, once with the plain Netty handler one would write by hand for the same endpoint. The difference
 * in time and in bytes allocated per request (`-prof gc`) is what Rapier adds on Netty; `io*` and `ioDelay*`, the same
 * endpoints with `IO.pure` and `IO.delay` logic, what running an `IO` adds to that.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class NettyPipelineBenchmark:
  import BenchRequests.{postBytes, simpleGet}

  private var rapier: EmbeddedChannel = null
  private var rapierIO: EmbeddedChannel = null
  private var rapierIODelay: EmbeddedChannel = null
  private var releaseIO: IO[Unit] = IO.unit
  private var vanilla: EmbeddedChannel = null
  private var lean: EmbeddedChannel = null

  @Setup
  def setup(): Unit =
    rapier = EmbeddedChannel(NettyServerInterpreter(BenchRequests.options).initializer(BenchRequests.endpoints))
    val (runner, release) = CatsRunner.resource[IO](Duration(1, "s")).allocated.unsafeRunSync()(using IORuntime.global)
    releaseIO = release
    given CatsRunner[IO] = runner
    rapierIO = ioChannel(IO.pure)
    rapierIODelay = ioChannel(IO.delay)
    vanilla = EmbeddedChannel(HttpServerCodec(), HttpObjectAggregator(10 * 1024 * 1024), VanillaHandler())
    lean = EmbeddedChannel(HttpServerCodec(), LeanHandler())

  /** A channel serving [[BenchRequests.ioEndpoints]] with `answer`'s `IO`s, run by the benchmark's runner. */
  private def ioChannel(answer: (=> String) => IO[String])(using CatsRunner[IO]): EmbeddedChannel =
    EmbeddedChannel(NettyServerInterpreter(BenchRequests.options).initializer(BenchRequests.ioEndpoints(answer)))

  @TearDown
  def tearDown(): Unit =
    rapier.finishAndReleaseAll()
    rapierIO.finishAndReleaseAll()
    rapierIODelay.finishAndReleaseAll()
    releaseIO.unsafeRunSync()(using IORuntime.global)
    vanilla.finishAndReleaseAll()
    lean.finishAndReleaseAll()

  private def exchange(channel: EmbeddedChannel, request: Array[Byte]): Int =
    channel.writeInbound(Unpooled.wrappedBuffer(request))
    var bytes = 0
    var out = channel.readOutbound[ByteBuf]()
    while out != null do
      bytes += out.readableBytes
      ReferenceCountUtil.release(out)
      out = channel.readOutbound[ByteBuf]()
    bytes

  @Benchmark def rapierSimpleGet(): Int = exchange(rapier, simpleGet)
  @Benchmark def ioSimpleGet(): Int = exchange(rapierIO, simpleGet)
  @Benchmark def ioPostBytes(): Int = exchange(rapierIO, postBytes)
  @Benchmark def ioDelaySimpleGet(): Int = exchange(rapierIODelay, simpleGet)
  @Benchmark def ioDelayPostBytes(): Int = exchange(rapierIODelay, postBytes)
  @Benchmark def vanillaSimpleGet(): Int = exchange(vanilla, simpleGet)
  @Benchmark def rapierPostBytes(): Int = exchange(rapier, postBytes)
  @Benchmark def vanillaPostBytes(): Int = exchange(vanilla, postBytes)
  @Benchmark def leanSimpleGet(): Int = exchange(lean, simpleGet)
  @Benchmark def leanPostBytes(): Int = exchange(lean, postBytes)

/**
 * The same two endpoints with no aggregation at all: the body copied once into an array, the response written
 * directly. The floor that any code on Netty's HTTP codec can reach.
 */
private final class LeanHandler extends io.netty.channel.ChannelInboundHandlerAdapter:
  private var request: HttpRequest = null
  private var body: Array[Byte] = null
  private var filled = 0

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = msg match
    case r: HttpRequest =>
      request = r
      val length = HttpUtil.getContentLength(r, 0L).toInt
      body = if length > 0 then new Array[Byte](length) else null
      filled = 0
    case c: HttpContent =>
      try
        val n = c.content.readableBytes
        if n > 0 then
          c.content.getBytes(c.content.readerIndex, body, filled, n)
          filled += n
        if c.isInstanceOf[LastHttpContent] then respond(ctx)
      finally c.release()
    case other => ReferenceCountUtil.release(other)

  private def respond(ctx: ChannelHandlerContext): Unit =
    val uri = request.uri
    val text =
      if request.method == HttpMethod.GET && uri.startsWith("/path0/") then s"ok ${uri.substring(7).toInt}"
      else if request.method == HttpMethod.POST && uri == "/pathBytes0" then s"ok ${filled}"
      else null
    HandWritten.respond(ctx, text)

/**
 * The plain Netty handler for the same two endpoints: aggregated requests, a manual route on the path, the body
 * written with the headers a client needs.
 */
private final class VanillaHandler extends SimpleChannelInboundHandler[FullHttpRequest]:
  override def channelRead0(ctx: ChannelHandlerContext, request: FullHttpRequest): Unit =
    val uri = request.uri
    val text =
      if request.method == HttpMethod.GET && uri.startsWith("/path0/") then s"ok ${uri.substring(7).toInt}"
      else if request.method == HttpMethod.POST && uri == "/pathBytes0" then
        val bytes = new Array[Byte](request.content.readableBytes)
        request.content.readBytes(bytes)
        s"ok ${bytes.length}"
      else null
    HandWritten.respond(ctx, text)

/**
 * What both pipeline benchmarks serve and send: the perf suite's SimpleGet and PostBytes endpoints, as Rapier
 * endpoints, and one request to each.
 */
private object BenchRequests:
  /** Rapier's defaults, but no request log and no idle timer: the channel is not a socket, and never idle. */
  val options: NettyServerOptions =
    NettyServerOptions().modifyServerOptions(
      _.withoutRequestLog
    ).withIdleTimeout(scala.concurrent.duration.Duration.Inf)

  val endpoints: List[ServerEndpoint[Future]] = List(
    endpoint.get.in("path0" / path[Int]("id")).out(stringBody).serverLogicSuccess[Future](id =>
      Future.successful(s"ok $id")
    ),
    endpoint.post.in("pathBytes0").in(byteArrayBody).out(stringBody).serverLogicSuccess[Future](b =>
      Future.successful(s"ok ${b.length}")
    )
  )

  /**
   * The same endpoints with cats-effect `IO` logic, its answer made into an `IO` by `answer`: `IO.pure`, as the
   * suite's `netty.cats.Rapier` serves them, or `IO.delay`, which goes through cats-effect's run loop.
   */
  def ioEndpoints(answer: (=> String) => IO[String]): List[ServerEndpoint[IO]] = List(
    endpoint.get.in("path0" / path[Int]("id")).out(stringBody).serverLogicSuccess[IO](id => answer(s"ok $id")),
    endpoint.post.in("pathBytes0").in(byteArrayBody).out(stringBody).serverLogicSuccess[IO](b =>
      answer(s"ok ${b.length}")
    )
  )

  val simpleGet: Array[Byte] =
    "GET /path0/4 HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n".getBytes(
      StandardCharsets.US_ASCII
    )
  val postBytes: Array[Byte] =
    val body = "x" * 256
    s"POST /pathBytes0 HTTP/1.1\r\nHost: localhost:8080\r\nContent-Length: 256\r\nContent-Type: application/octet-stream\r\n\r\n$body"
      .getBytes(StandardCharsets.US_ASCII)

/** What both hand-written handlers answer: the text as `text/plain`, or 404 for null. */
private object HandWritten:
  def respond(ctx: ChannelHandlerContext, text: String | Null): Unit =
    val response =
      if text == null then DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND)
      else
        val r = DefaultFullHttpResponse(
          HttpVersion.HTTP_1_1,
          HttpResponseStatus.OK,
          Unpooled.wrappedBuffer(text.nn.getBytes(StandardCharsets.UTF_8))
        )
        r.headers.set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
        r
    HttpUtil.setContentLength(response, response.content.readableBytes)
    ctx.writeAndFlush(response)
