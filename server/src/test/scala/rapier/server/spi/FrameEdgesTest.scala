package rapier.server.spi

class FrameEdgesTest extends munit.FunSuite:
  private given FrameEdges.At[Array[Byte]] = (bytes, i) => bytes(i)

  // A server's frame: unmasked, in the shortest length encoding
  private def frame(opcode: Int, n: Int): Array[Byte] =
    val length =
      if n < 126 then Array(n.toByte)
      else if n < 65536 then Array(126.toByte, (n >> 8).toByte, n.toByte)
      else Array(127.toByte) ++ (0 to 7).reverse.map(k => (n.toLong >> (8 * k)).toByte)
    Array((0x80 | opcode).toByte) ++ length ++ Array.fill(n)('x'.toByte)

  test("frames written whole, in pieces and across writes: each end found, in every length encoding"):
    val frames = List(frame(1, 5), frame(2, 300), frame(9, 0), frame(2, 70000), frame(8, 2))
    val bytes = frames.flatten.toArray
    val ends = frames.scanLeft(0)(_ + _.length).tail
    for piece <- List(1, 2, 7, 1000, bytes.length) do
      val edges = FrameEdges()
      var at = 0
      var found = List.empty[Int]
      var closeFound = -1
      while at < bytes.length do
        val n = math.min(piece, bytes.length - at)
        val slice = bytes.slice(at, at + n)
        val edge = edges.follow(slice, n)
        if edge > 0 then found = found :+ (at + edge)
        if edges.closeStart >= 0 then closeFound = at + edges.closeStart
        at += n
      assert(edges.atEdge, s"pieces of $piece")
      // The first end in each piece: every end when a piece holds at most one
      if piece == 1 then assertEquals(found, ends, "ends")
      assertEquals(closeFound, bytes.length - frame(8, 2).length, s"the close's start, pieces of $piece")

  test("a write that starts at an edge says so; one inside a frame says where it ends, or that it doesn't"):
    val edges = FrameEdges()
    val f = frame(1, 10)
    assertEquals(edges.follow(f.take(4), 4), 0, "they start at an edge")
    assertEquals(edges.follow(f.slice(4, 6), 2), -1, "inside the payload")
    assertEquals(edges.follow(f.drop(6) ++ frame(1, 3).take(1), 7), 6)
    assert(!edges.atEdge)
    val rest = frame(1, 3).drop(1)
    assertEquals(edges.follow(rest, rest.length), rest.length)
    assertEquals(edges.follow(frame(1, 1), 3), 0)
