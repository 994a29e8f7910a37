package rapier.zioeffect

import rapier.server.Monad
import rapier.testkit.ThreadLocalContext
import zio.{Task, ZIO, durationInt}

class ZioWithinTest extends munit.FunSuite:
  test("a logic context stays current across a ZIO's async boundaries, and not outside it"):
    val monad = summon[Monad[Task]]
    val seen = ZIO.succeed(ThreadLocalContext.current.get)
    val steps = ZIO.foreach((1 to 20).toList)(_ => ZIO.sleep(1.milli) *> ZIO.yieldNow *> seen)
    val (inside, after) = ZioKit.run(monad.within(ThreadLocalContext("request 1"))(steps).zip(seen))
    assertEquals(inside.distinct, List("request 1"))
    assertEquals(after, null)
    val both = ZIO.foreachPar(List("a", "b"))(id => monad.within(ThreadLocalContext(id))(steps.map(_.distinct)))
    assertEquals(ZioKit.run(both), List(List("a"), List("b")))
    val failed = monad.within(ThreadLocalContext("failing"))(ZIO.sleep(1.milli) *> ZIO.fail(Exception("no")))
    assertEquals(ZioKit.run(failed.either *> seen), null, "nor after a failure")

  test("a logic context is current in what runs at once, in the fibers it forks, and nowhere once it ends"):
    val monad = summon[Monad[Task]]
    val seen = ZIO.succeed(ThreadLocalContext.current.get)
    val forked = (ZIO.sleep(1.milli) *> seen).fork.flatMap(_.join)
    val (now, child) = ZioKit.run(monad.within(ThreadLocalContext("r"))(seen.zip(forked)))
    assertEquals((now, child), ("r", "r"))
    // Fibers unrelated to it run on the threads it ran on, and see nothing of it
    val others = ZIO.foreachPar((1 to 64).toList)(_ => ZIO.yieldNow *> seen *> ZIO.sleep(1.milli) *> seen)
    assertEquals(ZioKit.run(others).distinct, List(null))

  test("an interrupted logic leaves its context nowhere"):
    val monad = summon[Monad[Task]]
    val seen = ZIO.succeed(ThreadLocalContext.current.get)
    val interrupted =
      for
        fiber <- monad.within(ThreadLocalContext("cut"))(ZIO.yieldNow *> ZIO.never).fork
        _ <- ZIO.sleep(5.millis)
        _ <- fiber.interrupt
        others <- ZIO.foreachPar((1 to 64).toList)(_ => ZIO.yieldNow *> seen)
      yield others.distinct
    assertEquals(ZioKit.run(interrupted), List(null))
