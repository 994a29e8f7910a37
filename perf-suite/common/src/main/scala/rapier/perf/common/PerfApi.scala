package rapier.perf.common

/**
 * What every server in the suite serves, whatever it is built on, so that they can be compared. For each route
 * number `n` (0 only, or 0 to 127 for the Multi variants):
 *
 *   - `GET /path{n}/{id}`: `id` an Int; answers `ok {id}` as `text/plain`
 *   - `POST /path{n}`: a text body; answers `ok {length in characters}`
 *   - `POST /pathBytes{n}`: a binary body; answers `ok {length in bytes}`
 *   - `POST /pathJson{n}`: a JSON [[Order]]; answers the same order, decoded and encoded again, as `application/json`
 *   - `GET /pathJson{n}` (servers started with compression): [[order]], encoded for each request
 *   - `POST /pathStream{n}`: a binary body of any size, consumed as a stream, chunk by chunk as it arrives (never held
 *     whole); answers `ok {length in bytes}`
 *   - `GET /pathFile{n}`: the 5 MB [[file]], sent from disk
 *   - `GET /static/small.css`, `GET /static/large.bin` (servers that say they serve `statics`): the files of
 *     [[staticDirectory]], each by the server's own file service (or the hand-written twin's `sendfile`)
 *
 * Anything else is a 404; a body larger than [[MaxBodySize]] a 413, except a streamed one.
 */
object PerfApi:
  val TextPlain = "text/plain; charset=UTF-8"
  val Json = "application/json"

  /** Large enough for the 5 MB scenarios, the same for every server. */
  val MaxBodySize: Int = 16 * 1024 * 1024

  def ok(value: Long): String = s"ok $value"

  /** The order `GET /pathJson{n}` answers: about 64 KB of JSON. */
  val order: Order = Order.sample(Order.LinesFor64KB)

  /** The size of the file `GET /pathFile{n}` sends. */
  val FileSize: Int = 5 * 1024 * 1024

  /** The content of the file `GET /pathFile{n}` sends: the same bytes in every server. */
  def fileContent: Array[Byte] =
    val random = java.util.Random(20261123L)
    val bytes = new Array[Byte](FileSize)
    random.nextBytes(bytes)
    bytes

  /** The small file of [[staticDirectory]]: a 4 KiB stylesheet. */
  val StaticSmall = "small.css"

  /** The large file of [[staticDirectory]]: the 5 MB of [[fileContent]]. */
  val StaticLarge = "large.bin"

  /** The small file's bytes. */
  val staticSmallContent: Array[Byte] = (0 until 128).map(i =>
    f".rule-$i%03d { margin: ${i % 9}px; color: #${i * 1973 % 4096}%03x; }\n"
  ).mkString
    .padTo(4096, ' ')
    .take(4096)
    .getBytes(java.nio.charset.StandardCharsets.US_ASCII)

  /**
   * The directory `GET /static/{name}` serves, written once per server process in its temporary directory (as
   * [[file]]).
   */
  lazy val staticDirectory: java.nio.file.Path =
    val dir = java.nio.file.Files.createTempDirectory("rapier-perf-static-")
    dir.toFile.deleteOnExit()
    for (name, content) <- List(StaticSmall -> staticSmallContent, StaticLarge -> fileContent) do
      val path = dir.resolve(name)
      java.nio.file.Files.write(path, content)
      path.toFile.deleteOnExit()
    dir

  /**
   * The file `GET /pathFile{n}` sends, written once per server process in its temporary directory and deleted when it
   * exits (when the suite kills it, the suite deletes that directory).
   */
  lazy val file: java.nio.file.Path =
    val path = java.nio.file.Files.createTempFile("rapier-perf-", ".bin")
    java.nio.file.Files.write(path, fileContent)
    path.toFile.deleteOnExit()
    path

/** The JSON document of the PostJson scenario: an order with a few hundred lines, about 64 KB. */
final case class Order(id: Long, customer: Customer, lines: List[OrderLine], notes: String, createdAt: String)
final case class Customer(id: Long, name: String, email: String, tags: List[String])
final case class OrderLine(sku: String, description: String, quantity: Int, unitPrice: Double, discounted: Boolean)

object Order:
  /** The same document every time: deterministic content, `size` lines. */
  def sample(size: Int): Order =
    Order(
      id = 90210L,
      customer = Customer(42L, "Ada Lovelace", "ada@example.com", List("vip", "early-adopter", "analytical-engine")),
      lines = List.tabulate(size) { i =>
        OrderLine(
          sku = f"SKU-$i%06d",
          description = s"Item $i: a part of the difference engine, brass, numbered ${i * 7919 % 10007}",
          quantity = 1 + i % 9,
          unitPrice = (i % 500) * 1.25 + 0.99,
          discounted = i % 3 == 0
        )
      },
      notes = "Deliver to the Royal Society. " * 8,
      createdAt = "2024-01-31T12:00:00Z"
    )

  /** About 64 KB once encoded. */
  val LinesFor64KB = 434
