package rapier.bench

import io.netty.buffer.{ByteBuf, Unpooled}
import org.openjdk.jmh.annotations.*
import rapier.nettyhttp.HeadScanner

import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit

/**
 * The look Rapier's Netty decoder takes at each request head before Netty parses it (folding, Host fields):
 * `NettyPipelineBenchmark`'s SimpleGet head (4 lines, 79 bytes) and a browser's (12 lines, 534 bytes), each in a direct
 * buffer as a socket read leaves it. What the scan costs per request, beside the ~1 µs Netty's pipeline takes for the
 * whole exchange.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class HeadScanBenchmark:
  private val scanner = HeadScanner()
  private var simple: ByteBuf = null
  private var browser: ByteBuf = null

  @Setup
  def setup(): Unit =
    simple = direct(BenchRequests.simpleGet)
    browser = direct(HeadScanBenchmark.browserHead)

  @TearDown
  def tearDown(): Unit =
    simple.release()
    browser.release()

  private def direct(bytes: Array[Byte]): ByteBuf = Unpooled.directBuffer(bytes.length).writeBytes(bytes)

  private def scan(head: ByteBuf): Int =
    scanner.scan(head)
    val hosts = scanner.hosts
    scanner.messageDecoded()
    hosts

  @Benchmark def simpleGet(): Int = scan(simple)
  @Benchmark def browserGet(): Int = scan(browser)

private object HeadScanBenchmark:
  val browserHead: Array[Byte] = Seq(
    "GET /products/4711/reviews?page=2&sort=newest HTTP/1.1",
    "Host: shop.example.com",
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language: en-GB,en;q=0.5",
    "Accept-Encoding: gzip, deflate, br, zstd",
    "Referer: https://shop.example.com/products/4711",
    "Connection: keep-alive",
    "Cookie: session=4f1c2a9e7b3d45e0a8c6f2b1d9e7c3a5; theme=dark; consent=1",
    "Upgrade-Insecure-Requests: 1",
    "Sec-Fetch-Dest: document",
    "Priority: u=0, i"
  ).mkString("", "\r\n", "\r\n\r\n").getBytes(StandardCharsets.US_ASCII)
