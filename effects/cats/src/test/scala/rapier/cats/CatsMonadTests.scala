package rapier.cats

import cats.effect.IO
import cats.effect.unsafe.IORuntime
import rapier.server.Monad

import scala.util.Try

/** The interpreter's steps after an `IO.pure` run when composed; after any other `IO`, when it runs. */
class CatsMonadTests extends munit.FunSuite:
  private given IORuntime = IORuntime.global
  private val m: Monad[IO] = catsMonad[IO]

  private def run[A](io: IO[A]): Try[A] = Try(io.unsafeRunSync())

  test("this cats-effect's IO.pure is read as a value (else every IO goes through its run loop)"):
    assert(PureValue.reads)
    val value = new Object
    assert(PureValue.of(IO.pure(value)).asInstanceOf[AnyRef] eq value)
    assertEquals(PureValue.of(IO.unit), ())
    for io <- List(IO.delay(value), IO.raiseError(IllegalStateException()), IO.pure(1).map(_ + 1), IO.never) do
      assert(PureValue.of(io).asInstanceOf[AnyRef] eq PureValue.NotPure, io)

  test("a step after IO.pure runs when composed; its failure is the IO's, not the composer's"):
    var ran = 0
    val mapped = m.map(IO.pure(20)) { n => ran += 1; n + 1 }
    val flatMapped = m.flatMap(IO.pure(20)) { n => ran += 1; IO.pure(n + 2) }
    assertEquals(ran, 2)
    assertEquals(PureValue.of(mapped), 21)
    assertEquals(run(flatMapped).get, 22)
    val boom = IllegalStateException("boom")
    val failedMap = m.map(IO.pure(1))(_ => throw boom)
    val failedFlatMap = m.flatMap(IO.pure(1))(_ => throw boom)
    assertEquals(run(failedMap).failed.get, boom)
    assertEquals(run(failedFlatMap).failed.get, boom)
    val handled = m.handleError(failedMap)(e => IO.pure(e.getMessage))
    assertEquals(run(handled).get, "boom")

  test("a step after any other IO runs when the IO does, each time it does"):
    var ran = 0
    val mapped = m.map(IO.delay(20)) { n => ran += 1; n + 1 }
    val flatMapped = m.flatMap(IO.delay(20)) { n => ran += 1; IO.pure(n + 2) }
    assertEquals(ran, 0)
    assertEquals((run(mapped).get, run(mapped).get, run(flatMapped).get), (21, 21, 22))
    assertEquals(ran, 3)

  test("an IO.pure needs no error handler; a failure still reaches it"):
    val pure = IO.pure("ok")
    assert(m.handleError(pure)(_ => IO.pure("handled")) eq pure)
    assertEquals(
      run(m.handleError(IO.raiseError[String](IllegalStateException()))(_ => IO.pure("handled"))).get,
      "handled"
    )
