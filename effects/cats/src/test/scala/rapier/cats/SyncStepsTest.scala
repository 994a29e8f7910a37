package rapier.cats

import cats.effect.unsafe.IORuntime
import cats.effect.{IO, Resource}

import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.Await
import scala.concurrent.duration.*

/** What the runner runs on the loop: steps up to a boundary or a region, and a remainder that keeps its finalizers. */
class SyncStepsTest extends munit.FunSuite:
  private given IORuntime = IORuntime.global

  /** Steps `io` here, then starts what remains as a fiber, lets it reach its boundary and cancels it. */
  private def stepAndCancel(io: IO[Unit], reached: AtomicBoolean): Unit =
    SyncSteps.run(io) match
      case Right(_) => fail("the IO ended here")
      case Left(rest) =>
        val (_, cancel) = rest.unsafeToFutureCancelable()
        val deadline = System.nanoTime + 5.seconds.toNanos
        while !reached.get && System.nanoTime < deadline do Thread.sleep(1)
        assert(reached.get, "the remainder ran")
        Await.result(cancel(), 5.seconds)

  test("what answers at once runs here, however many steps"):
    var ran = 0
    val io = (1 to 100).foldLeft(IO.pure(0))((acc, _) => acc.flatMap(n => IO.delay { ran += 1; n + 1 }))
    assertEquals(SyncSteps.run(io), Right(100))
    assertEquals(ran, 100)
    assertEquals(SyncSteps.run(IO.raiseError[Int](IllegalStateException("no")).handleError(_ => 7)), Right(7))

  test("a Resource whose use crosses a boundary is released when the remainder is cancelled"):
    val reached = AtomicBoolean()
    val released = AtomicBoolean()
    val io = IO.delay(()) *> Resource.make(IO.unit)(_ => IO(released.set(true))).use(_ =>
      IO.cede *> IO(reached.set(true)) *> IO.never
    )
    stepAndCancel(io, reached)
    assert(released.get, "the Resource was not released")

  test("onCancel and guarantee around a boundary run when the remainder is cancelled"):
    val reached = AtomicBoolean()
    val onCancel = AtomicBoolean()
    val guaranteed = AtomicBoolean()
    val io = (IO.cede *> IO(reached.set(true)) *> IO.never[Unit])
      .onCancel(IO(onCancel.set(true)))
      .guarantee(IO(guaranteed.set(true)))
    stepAndCancel(io, reached)
    assert(onCancel.get && guaranteed.get, s"onCancel ${onCancel.get}, guarantee ${guaranteed.get}")

  test("an uncancelable region crossing a boundary finishes before the cancellation takes"):
    val reached = AtomicBoolean()
    val finished = AtomicBoolean()
    val io = IO.uncancelable(_ => IO.cede *> IO(reached.set(true)) *> IO.sleep(50.millis) *> IO(finished.set(true)))
      *> IO.never
    stepAndCancel(io, reached)
    assert(finished.get, "the masked region was interrupted")
