package rapier.bench

import org.openjdk.jmh.annotations.*
import rapier.server.spi.WebSocketWatch

import java.util.concurrent.TimeUnit

/**
 * What the watch of a client's WebSocket bytes costs (`spi.WebSocketWatch`, on Ember's and pekko-http's connections
 * and before Netty's frame decoder on a text endpoint): a masked text frame of 100 bytes and one of 64 KiB, read as one
 * socket read leaves them, the payload unmasked and its UTF-8 checked a byte at a time.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class WebSocketWatchBenchmark:
  private val watch = WebSocketWatch(true, Int.MaxValue)
  private val small = WebSocketWatchBenchmark.textFrame(100)
  private val large = WebSocketWatchBenchmark.textFrame(65536)

  @Benchmark
  def frameOf100Bytes(): AnyRef = watch.feed(small, 0, small.length)

  @Benchmark
  def frameOf64KiB(): AnyRef = watch.feed(large, 0, large.length)

object WebSocketWatchBenchmark:
  // A client's text frame of `n` ASCII bytes with a 2-byte character every 50, masked
  private def textFrame(n: Int): Array[Byte] =
    val text = Array.tabulate[Byte](n)(i =>
      if i % 50 == 48 then 0xc3.toByte else if i % 50 == 49 then 0xa9.toByte else ('a' + i % 26).toByte
    )
    val key = Array[Byte](0x37, 0x5a, 0x11, 0x7e)
    val length =
      if n < 126 then Array((0x80 | n).toByte)
      else Array((0x80 | 127).toByte) ++ (0 to 7).reverse.map(k => (n.toLong >> (8 * k)).toByte)
    Array(0x81.toByte) ++ length ++ key ++ text.indices.map(i => (text(i) ^ key(i % 4)).toByte)
