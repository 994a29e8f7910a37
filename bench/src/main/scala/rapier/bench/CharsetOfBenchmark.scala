package rapier.bench

import org.openjdk.jmh.annotations.*
import rapier.model.Text

import java.nio.charset.{Charset, StandardCharsets}
import java.util.concurrent.TimeUnit

/**
 * Reading the charset of a text body's `Content-Type`, which every request with a text body pays: the suite's
 * PostString header (`text/plain; charset=UTF-8`), a Latin-1 one with a quoted value, and one with no parameter.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class CharsetOfBenchmark:
  var utf8 = "text/plain; charset=UTF-8"
  var latin1 = "text/plain; format=\"flowed\"; charset=\"ISO-8859-1\""
  var none = "text/plain"

  @Benchmark def declaredUtf8(): Charset | Null = Text.charsetOf(utf8, StandardCharsets.UTF_8)
  @Benchmark def declaredLatin1(): Charset | Null = Text.charsetOf(latin1, StandardCharsets.UTF_8)
  @Benchmark def noParameter(): Charset | Null = Text.charsetOf(none, StandardCharsets.UTF_8)
