package rapier.bench

import org.openjdk.jmh.annotations.*
import rapier.ServerSentEvent

import java.nio.charset.StandardCharsets
import java.util.concurrent.TimeUnit

/**
 * One server-sent event as the SSE study sends it (its data a `System.nanoTime` stamp) encoded for the stream, against
 * the bytes a hand-written server writes for it (`"data: " + stamp + "\n\n"`), and an event of three lines and a type.
 * What `ServerSentEvent.encode` costs per event beyond the twin's one string.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class SseEncodeBenchmark:
  private val stamp = java.lang.Long.toString(System.nanoTime())
  private val lines = "first line\nsecond line, a little longer\r\nthird"

  @Benchmark
  def handWritten(): Array[Byte] = ("data: " + stamp + "\n\n").getBytes(StandardCharsets.UTF_8)

  @Benchmark
  def stampEvent(): Array[Byte] = ServerSentEvent.data(stamp).encode

  @Benchmark
  def threeLines(): Array[Byte] = ServerSentEvent(data = Some(lines), event = Some("update")).encode
