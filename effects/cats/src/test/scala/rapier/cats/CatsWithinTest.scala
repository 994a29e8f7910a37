package rapier.cats

import cats.effect.IO
import cats.effect.unsafe.implicits.global
import cats.syntax.all.*
import rapier.server.Monad
import rapier.testkit.ThreadLocalContext

import scala.concurrent.duration.*

class CatsWithinTest extends munit.FunSuite:
  test("a logic context stays current across an IO's async boundaries, and not outside it"):
    val monad = summon[Monad[IO]]
    val seen = IO(ThreadLocalContext.current.get)
    val steps = (1 to 20).toList.traverse(i => IO.sleep(1.milli) *> IO.cede *> seen.map(i -> _))
    val (inside, after) =
      monad.within(ThreadLocalContext("request 1"))(steps).flatMap(s => seen.map(s -> _)).unsafeRunSync()
    assertEquals(inside.map(_._2).distinct, List("request 1"))
    assertEquals(after, null)
    val both = List("a", "b").parTraverse(id => monad.within(ThreadLocalContext(id))(steps.map(_.map(_._2).distinct)))
    assertEquals(both.unsafeRunSync(), List(List("a"), List("b")))
    val failed = monad.within(ThreadLocalContext("failing"))(IO.sleep(1.milli) *> IO.raiseError(Exception("no")))
    assertEquals((failed.attempt *> seen).unsafeRunSync(), null, "nor after a failure")

  test("a logic context is current in what runs at once, in the fibers it starts, and nowhere once it ends"):
    val monad = summon[Monad[IO]]
    val seen = IO(ThreadLocalContext.current.get)
    val started = (IO.sleep(1.milli) *> seen).start.flatMap(_.joinWithNever)
    assertEquals(monad.within(ThreadLocalContext("r"))(seen.product(started)).unsafeRunSync(), ("r", "r"))
    val failedAtOnce = monad.within(ThreadLocalContext("r"))(IO.raiseError[String](Exception("no")))
    assertEquals(failedAtOnce.attempt.map(_.left.map(_.getMessage)).unsafeRunSync(), Left("no"))
    val others = (1 to 64).toList.parTraverse(_ => IO.cede *> seen *> IO.sleep(1.milli) *> seen)
    assertEquals(others.unsafeRunSync().distinct, List(null))
