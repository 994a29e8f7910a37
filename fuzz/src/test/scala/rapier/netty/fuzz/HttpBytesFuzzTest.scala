package rapier.netty.fuzz

import com.code_intelligence.jazzer.junit.FuzzTest
import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.embedded.EmbeddedChannel
import io.netty.handler.codec.http.{HttpDecoderConfig, HttpResponseEncoder}
import io.netty.util.ReferenceCountUtil
import org.junit.jupiter.api.{AfterAll, TestInstance}
import rapier.netty.NettyServerOptions
import rapier.netty.internal.{Connections, HttpHandler, RequestDecoder}
import rapier.server.interceptor.Interceptor
import rapier.server.{Handler, Monad, Route, ServerInterpreter}
import rapier.testkit.{LeakDetection, RawHttp}

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets
import scala.util.control.NonFatal

/**
 * Any bytes a client may send on a connection, through Rapier's whole Netty pipeline (strict decoder, handler,
 * interpreter, endpoints with every kind of input): every response is a 2xx, 3xx or 4xx, or the 501 and 505 the RFCs
 * name for what the server does not implement; no exception reaches the handler.
 *
 * The input is split in two writes at a point its first byte chooses, so that requests also arrive in pieces. Netty's
 * leak detector runs at its paranoid level (the build's test options); a leak fails the run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpBytesFuzzTest:
  // Before the first buffer exists, so that every leak the (paranoid) detector finds is recorded.
  LeakDetection.install()

  @FuzzTest(maxDuration = "30s")
  def anyBytes(data: Array[Byte]): Unit = HttpBytesFuzzTest.serve(data)

  @AfterAll
  def noLeaks(): Unit =
    val leaks = LeakDetection.leaksSoFar()
    if leaks.nonEmpty then throw AssertionError(s"Netty reported ${leaks.size} leak(s):\n${leaks.mkString("\n")}")

object HttpBytesFuzzTest:
  // The methods of the requests the interpreter answered, in order: a response to HEAD has no body to skip.
  private val methods = java.util.ArrayDeque[String]()
  private object RecordMethods extends Interceptor:
    def apply[F[_]](route: Route, next: Handler[F])(using Monad[F]): Handler[F] = request =>
      methods.add(request.method.name)
      next(request)

  private val options = NettyServerOptions()
    .withMaxBodySize(64 * 1024)
    .withMaxInitialLineLength(1024)
    .withMaxHeaderSize(2048)
    .modifyServerOptions(_.withoutRequestLog.withInterceptor(RecordMethods))
  private val interpreter = ServerInterpreter(FuzzEndpoints.all, options.serverOptions)
  private val decoderConfig =
    HttpDecoderConfig().setMaxInitialLineLength(1024).setMaxHeaderSize(2048).setMaxChunkSize(64 * 1024)

  private val connections = Connections(Int.MaxValue, rapier.server.spi.Admission(options.backend))

  def serve(data: Array[Byte]): Unit =
    methods.clear()
    var escaped: Throwable | Null = null
    val decoder = RequestDecoder(decoderConfig)
    val handler = new HttpHandler(interpreter, rapier.server.spi.Runner.future, options, connections, decoder):
      override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
        if escaped == null then escaped = cause
        super.exceptionCaught(ctx, cause)
    val channel = EmbeddedChannel(decoder, HttpResponseEncoder(), handler)
    val out = ByteArrayOutputStream()
    try
      val split = if data.isEmpty then 0 else (data(0) & 0xff) % data.length
      channel.writeInbound(Unpooled.wrappedBuffer(data, 0, split))
      if channel.isActive then channel.writeInbound(Unpooled.wrappedBuffer(data, split, data.length - split))
      channel.runPendingTasks()
      var buf = channel.readOutbound[ByteBuf]()
      while buf != null do
        buf.readBytes(out, buf.readableBytes)
        ReferenceCountUtil.release(buf)
        buf = channel.readOutbound[ByteBuf]()
    finally channel.finishAndReleaseAll()
    if escaped != null then throw AssertionError("an exception reached the connection's handler", escaped)
    for status <- statuses(out.toByteArray) do
      if status >= 500 && status != 501 && status != 505 then
        throw AssertionError(s"answered $status to:\n${String(data, StandardCharsets.ISO_8859_1)}")

  /**
   * The statuses of the responses in `bytes`, read one after the other as a client reads them, without a body for
   * those to the HEAD requests among `methods` (the interpreter's answers come first, in request order; refusals after
   * them).
   */
  private def statuses(bytes: Array[Byte]): List[Int] =
    val in = java.io.ByteArrayInputStream(bytes)
    val found = List.newBuilder[Int]
    while in.available > 0 do
      val at = bytes.length - in.available
      val response =
        try RawHttp.readResponse(in, head = methods.peek() == "HEAD")
        catch
          case NonFatal(e) =>
            throw AssertionError(
              s"not a response at $at: ${String(bytes, StandardCharsets.ISO_8859_1).drop(at).take(200)}",
              e
            )
      found += response.status
      // An interim 100 Continue precedes the answer to its request.
      if response.status != 100 then methods.poll()
    found.result()
