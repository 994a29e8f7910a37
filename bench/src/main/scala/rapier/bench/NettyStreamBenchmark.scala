package rapier.bench

import io.netty.buffer.{ByteBuf, ByteBufAllocator}
import io.netty.channel.embedded.EmbeddedChannel
import io.netty.channel.{ChannelHandlerContext, ChannelInboundHandlerAdapter}
import io.netty.handler.codec.http.*
import io.netty.util.ReferenceCountUtil
import org.openjdk.jmh.annotations.*
import rapier.*
import rapier.netty.NettyServerInterpreter
import rapier.server.*

import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit
import scala.concurrent.{ExecutionContext, Future}

/**
 * A 1 MiB body streamed through Netty's pipeline without sockets, arriving as 64 KiB direct buffers as a socket's
 * reads would bring it: once to Rapier's `chunksBody` endpoint (the perf suite's `/pathStream0`, counting the bytes
 * chunk by chunk), once to the hand-written handler that counts Netty's `HttpContent`s as they come. The difference
 * in bytes allocated per body (`-prof gc`) is what Rapier's streaming adds per chunk. The buffers come from Netty's
 * default allocator, as a server's reads do.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.MICROSECONDS)
class NettyStreamBenchmark:
  import NettyStreamBenchmark.*

  private var rapier: EmbeddedChannel = null
  private var vanilla: EmbeddedChannel = null

  @Setup
  def setup(): Unit =
    rapier = EmbeddedChannel(NettyServerInterpreter(BenchRequests.options).initializer(endpoints))
    // Chunks of up to 64 KiB, as Rapier's decoder and the suite's bare Netty server have them
    vanilla = EmbeddedChannel(HttpServerCodec(HttpDecoderConfig().setMaxChunkSize(ReadSize)), CountingHandler())

  @TearDown
  def tearDown(): Unit =
    rapier.finishAndReleaseAll()
    vanilla.finishAndReleaseAll()

  private def exchange(channel: EmbeddedChannel): Int =
    channel.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(head.length).writeBytes(head))
    var sent = 0
    while sent < BodySize do
      val read = ByteBufAllocator.DEFAULT.directBuffer(ReadSize).writeBytes(body, sent, ReadSize)
      channel.writeInbound(read)
      sent += ReadSize
    channel.runPendingTasks()
    var bytes = 0
    var out = channel.readOutbound[ByteBuf]()
    while out != null do
      bytes += out.readableBytes
      ReferenceCountUtil.release(out)
      out = channel.readOutbound[ByteBuf]()
    if bytes == 0 then throw IllegalStateException("no response")
    bytes

  @Benchmark def rapierPostStream(): Int = exchange(rapier)
  @Benchmark def vanillaPostStream(): Int = exchange(vanilla)

private object NettyStreamBenchmark:
  val BodySize: Int = 1024 * 1024
  val ReadSize: Int = 64 * 1024
  val body: Array[Byte] = Array.tabulate[Byte](BodySize)(i => (i % 251).toByte)
  val head: Array[Byte] =
    s"POST /pathStream0 HTTP/1.1\r\nHost: localhost:8080\r\nContent-Length: $BodySize\r\n\r\n".getBytes(
      StandardCharsets.US_ASCII
    )

  val endpoints: List[ServerEndpoint[Future]] = List(
    endpoint.post.in("pathStream0").in(chunksBody).out(stringBody).serverLogicSuccess[Future](chunks =>
      chunks.fold(0L)((n, chunk) => n + chunk.remaining).map(n => s"ok $n")(using ExecutionContext.parasitic)
    )
  )

/** Counts a body's bytes as Netty's decoder hands its contents over, and answers once the last has come. */
private final class CountingHandler extends ChannelInboundHandlerAdapter:
  private var counted = 0L

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    try
      msg match
        case _: HttpRequest => counted = 0L
        case _ =>
      msg match
        case c: HttpContent =>
          counted += c.content.readableBytes
          if c.isInstanceOf[LastHttpContent] then HandWritten.respond(ctx, s"ok $counted")
        case _ =>
    finally ReferenceCountUtil.release(msg)
