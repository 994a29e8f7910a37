package rapier.server.internal

import org.openjdk.jmh.annotations.*

import java.util.concurrent.TimeUnit

/**
 * (In the router's package: the trie is internal.)
 *
 * Routing alone: finding `GET /path{n-1}/4` among n endpoints `GET /path{i}/{id}`. The trie should make the count
 * irrelevant.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class RouteLookupBenchmark:
  @Param(Array("1", "16", "128"))
  var endpoints: Int = 0

  private var trie: PathTrie[String] = null
  private var target: String = null
  private var request: rapier.server.spi.ServerRequest = null

  @Setup
  def setup(): Unit =
    val builder = PathTrie.Builder[String]()
    for i <- 0 until endpoints do builder.add(List(PathPart.Fixed(s"path$i"), PathPart.Capture), Some("GET"), s"e$i")
    trie = builder.build()
    target = s"/path${endpoints - 1}/4"
    request = rapier.testkit.StubRequest("GET", target)

  @Benchmark
  def lookup(): String | Null = trie.find(target, 0, target.length, "GET", request)
