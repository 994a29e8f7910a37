package rapier.server.internal

import rapier.server.internal.PathPart.*

class PathTrieTest extends munit.FunSuite:
  private def trie(routes: (List[PathPart], Option[String], String)*): PathTrie[String] =
    val b = PathTrie.Builder[String]()
    routes.foreach((parts, method, name) => assertEquals(b.add(parts, method, name), None))
    b.build()

  private def find(t: PathTrie[String], method: String, path: String): Option[(String, List[String])] =
    val request = PathTrieTest.Request()
    val end = path.indexOf('?') match
      case -1 => path.length
      case i => i
    Option(t.find(path, 0, end, method, request)).map { found =>
      val n = found.count(_ == '#')
      found.takeWhile(_ != '#') -> (0 until n).map(k =>
        path.substring(request.captureStart(k), request.captureEnd(k))
      ).toList
    }

  private val books = trie(
    (List(Fixed("books")), Some("GET"), "list"),
    (List(Fixed("books"), Capture), Some("GET"), "get#"),
    (List(Fixed("books"), Fixed("new")), Some("GET"), "new"),
    (List(Fixed("books"), Capture, Fixed("reviews"), Capture), Some("GET"), "review##"),
    (List(Fixed("books"), Capture), Some("DELETE"), "delete#"),
    (List(Fixed("files"), Rest), Some("GET"), "files#"),
    (List(Fixed("files"), Capture, Fixed("meta")), Some("GET"), "meta#"),
    (Nil, Some("GET"), "root"),
    (List(Fixed("any")), None, "any")
  )

  test("fixed segments, captures and their positions"):
    assertEquals(find(books, "GET", "/books"), Some("list" -> Nil))
    assertEquals(find(books, "GET", "/books/42"), Some("get" -> List("42")))
    assertEquals(find(books, "GET", "/books/42/reviews/7?x=1"), Some("review" -> List("42", "7")))
    assertEquals(find(books, "DELETE", "/books/42"), Some("delete" -> List("42")))

  test("a fixed segment takes precedence over a capture"):
    assertEquals(find(books, "GET", "/books/new"), Some("new" -> Nil))

  test("the walk backs up to the rest of the path"):
    assertEquals(find(books, "GET", "/files/a/meta"), Some("meta" -> List("a")))
    assertEquals(find(books, "GET", "/files/a/b/c"), Some("files" -> List("a/b/c")))
    assertEquals(find(books, "GET", "/files"), Some("files" -> List("")))

  test("the root and the empty path"):
    assertEquals(find(books, "GET", "/"), Some("root" -> Nil))
    assertEquals(find(books, "GET", ""), Some("root" -> Nil))

  test("captures never take an empty segment; a trailing slash is a segment of its own"):
    assertEquals(find(books, "GET", "/books/"), None)
    assertEquals(find(books, "GET", "/books//reviews/1"), None)

  test("methods: exact, HEAD through GET, and endpoints for any method"):
    assertEquals(find(books, "POST", "/books"), None)
    assertEquals(find(books, "HEAD", "/books/1"), Some("get" -> List("1")))
    assertEquals(find(books, "PATCH", "/any"), Some("any" -> Nil))
    assertEquals(find(books, "GET", "/any"), Some("any" -> Nil))

  test("the methods a path allows, in Allow order"):
    assertEquals(books.allowedMethods("/books/1", 0, 8), List("GET", "HEAD", "DELETE"))
    assertEquals(books.allowedMethods("/books/new", 0, 10), List("GET", "HEAD", "DELETE"))
    assertEquals(books.allowedMethods("/nothing", 0, 8), Nil)
    // each once, whatever the repeats
    val methods = List("PURGE", "POST", "GET", "LINK", "OPTIONS", "PURGE", "LINK", "GET", "HEAD")
    assertEquals(PathTrie.allowOrder(methods), List("GET", "HEAD", "POST", "OPTIONS", "LINK", "PURGE"))

  test("percent-encoded fixed segments match their decoded text"):
    val t = trie((List(Fixed("a b"), Fixed("ż")), Some("GET"), "spaced"))
    assertEquals(find(t, "GET", "/a%20b/%C5%BC"), Some("spaced" -> Nil))
    assertEquals(find(t, "GET", "/a%2zb/%C5%BC"), None)

  test("128 siblings are all found, and near misses are not"):
    val t = trie((0 until 128).map(i => (List(Fixed(s"path$i"), Capture), Some("GET"), s"p$i#"))*)
    for i <- 0 until 128 do assertEquals(find(t, "GET", s"/path$i/4"), Some(s"p$i" -> List("4")))
    assertEquals(find(t, "GET", "/path128/4"), None)
    assertEquals(find(t, "GET", "/path/4"), None)
    assertEquals(find(t, "GET", "/Path1/4"), None)

  test("adding a route with the same method and shape returns the one already there"):
    val b = PathTrie.Builder[String]()
    assertEquals(b.add(List(Fixed("u"), Capture), Some("GET"), "first"), None)
    assertEquals(b.add(List(Fixed("u"), Capture), Some("GET"), "second"), Some("first"))
    assertEquals(b.add(List(Fixed("u"), Capture), Some("PUT"), "third"), None)
    assertEquals(b.add(List(Fixed("u"), Capture), None, "any"), None)
    assertEquals(b.add(List(Fixed("u"), Capture), None, "any2"), Some("any"))

object PathTrieTest:
  /** Only somewhere for the trie to write captures. */
  final class Request extends rapier.server.spi.ServerRequest:
    def method = rapier.model.Method.GET
    def uri = ""
    def protocol = "HTTP/1.1"
    def headerOrNull(name: String) = null
    def headerValues(name: String) = Nil
    def headers = Nil
    def remoteAddressOrNull = null
    def bodyOrNull = null

class SegmentTableTest extends munit.FunSuite:
  test("small tables are scanned, large ones hashed; both find keys by range"):
    for size <- List(0, 1, 4, 5, 64) do
      val keys = (0 until size).map(i => s"k$i")
      val t = SegmentTable(keys.map(k => k -> k.toUpperCase).toList)
      keys.foreach(k => assertEquals(t.get(s"/x/$k/y", 3, 3 + k.length), k.toUpperCase))
      assertEquals(t.get("nope"), null)

  test("keys with equal hash codes are told apart"):
    assertEquals("Aa".hashCode, "BB".hashCode)
    val t = SegmentTable(List("Aa" -> "first", "BB" -> "second", "c" -> "c", "d" -> "d", "e" -> "e"))
    assertEquals(t.get("Aa"), "first")
    assertEquals(t.get("BB"), "second")
    assertEquals(t.get("AaBB"), null)
