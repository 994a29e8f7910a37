package rapier

class TuplesTest extends munit.FunSuite:
  test("concatenation follows the arities"):
    assertEquals(Tuples.concat((), 0, 5, 1), 5)
    assertEquals(Tuples.concat(5, 1, (), 0), 5)
    assertEquals(Tuples.concat(1, 1, "a", 1), (1, "a"))
    assertEquals(Tuples.concat((1, 2), 2, "a", 1), (1, 2, "a"))
    assertEquals(Tuples.concat(1, 1, ("a", "b"), 2), (1, "a", "b"))

  test("splitting is the inverse of concatenation"):
    assertEquals(Tuples.split((1, 2, "a"), 2, 1), ((1, 2), "a"))
    assertEquals(Tuples.split((1, "a"), 1, 1), (1, "a"))
    assertEquals(Tuples.split(7, 0, 1), ((), 7))

  test("combined values of more than 22 elements"):
    val values = Array.tabulate[Any](25)(identity)
    val combined = Tuples.combine(values, 0, 25)
    assertEquals(Tuples.element(combined, 25, 24), 24)

  test("the arities a combination records"):
    def arities[A, B](using c: Combine[A, B]) = (c.leftArity, c.rightArity)
    assertEquals(arities[Unit, Int], (0, 1))
    assertEquals(arities[Int, Unit], (1, 0))
    assertEquals(arities[(Int, String), (Long, Int, Int)], (2, 3))
    assertEquals(arities[Int, (Long, Int)], (1, 2))
    assertEquals(arities[(Long, Int), Int], (2, 1))
    assertEquals(arities[Option[Int], List[Int]], (1, 1))
