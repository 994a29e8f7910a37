package rapier.testkit

import rapier.server.LogicContext

import java.util.concurrent.Executor

/** A [[rapier.server.LogicContext]] that sets a thread-local to `value`: what an effect's `within` must keep current. */
final class ThreadLocalContext(value: String) extends LogicContext:
  def attach(): AutoCloseable =
    val before = ThreadLocalContext.current.get
    ThreadLocalContext.current.set(value)
    () => ThreadLocalContext.current.set(before)

  def wrap(executor: Executor): Executor = task =>
    executor.execute { () =>
      val scope = attach()
      try task.run()
      finally scope.close()
    }

object ThreadLocalContext:
  val current: ThreadLocal[String | Null] = ThreadLocal.withInitial(() => null)
